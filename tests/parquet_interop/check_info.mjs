// Compares `laddu-cpp data info --json FILE` (argv[3]) with DuckDB's count/min/max/sum of FILE.
import { DuckDBInstance } from '@duckdb/node-api';
import { readFileSync } from 'node:fs';

const [file, jsonPath] = process.argv.slice(2);
const info = JSON.parse(readFileSync(jsonPath, 'utf8'));
const con = await (await DuckDBInstance.create(':memory:')).connect();
const count = Number((await con.runAndReadAll(`SELECT count(*) AS n FROM read_parquet('${file}')`)).getRowObjects()[0].n);
let failures = 0;
const fail = (what) => { console.error(`check_info ${file}: ${what}`); failures++; };
if (info.events !== count) fail(`events ${info.events} vs DuckDB ${count}`);
if (JSON.stringify(info.files) !== JSON.stringify([file])) fail(`files ${info.files}`);
for (const c of info.columns) {
  const r = (await con.runAndReadAll(`SELECT CAST(min("${c.name}") AS DOUBLE) AS lo,
      CAST(max("${c.name}") AS DOUBLE) AS hi, CAST(sum(CAST("${c.name}" AS DOUBLE)) AS DOUBLE) AS s
      FROM read_parquet('${file}')`)).getRowObjects()[0];
  if (c.min !== r.lo) fail(`${c.name} min ${c.min} vs ${r.lo}`);
  if (c.max !== r.hi) fail(`${c.name} max ${c.max} vs ${r.hi}`);
  // DuckDB's double sum is not compensated; agree to a relative 1e-12 of the absolute mass.
  const mass = Math.max(Math.abs(c.min), Math.abs(c.max)) * count;
  if (Math.abs(c.sum - r.s) > 1e-12 * mass + 1e-300) fail(`${c.name} sum ${c.sum} vs ${r.s}`);
}
if (failures > 0) process.exit(1);
console.log(`check_info ${file}: ${info.columns.length} columns agree with DuckDB`);
