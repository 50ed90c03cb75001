// Reads the laddu_*.parquet files laddu-cpp wrote (argv[2]) with DuckDB and with hyparquet, and
// compares every value bit for bit against the sidecar laddu-cpp wrote beside each file.
import { DuckDBInstance } from '@duckdb/node-api';
import { asyncBufferFromFile, parquetReadObjects, parquetMetadataAsync } from 'hyparquet';
import { compressors } from 'hyparquet-compressors';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { doubleBits, readSidecar, toDouble } from './sidecar.mjs';

const dir = process.argv[2];
const con = await (await DuckDBInstance.create(':memory:')).connect();
let failures = 0;
const compare = (who, file, name, values, bits) => {
  if (values.length !== bits.length) {
    console.error(`${who} ${file} ${name}: ${values.length} values, expected ${bits.length}`);
    failures++;
    return;
  }
  for (let i = 0; i < bits.length; i++) {
    const d = toDouble(values[i]);
    const got = d === null ? 'null' : doubleBits(d);
    if (got !== bits[i]) {
      if (failures < 20) console.error(`${who} ${file} ${name} row ${i}: ${got} vs ${bits[i]}`);
      failures++;
    }
  }
};
const files = readdirSync(dir).filter((f) => f.startsWith('laddu_') && f.endsWith('.parquet'));
if (files.length < 4) throw new Error(`expected laddu_*.parquet files in ${dir}`);
for (const f of files) {
  const path = join(dir, f);
  const expect = readSidecar(`${path}.expect`);
  const names = expect.columns.map((c) => c.name);
  const duck = await con.runAndReadAll(`SELECT ${names.map((n) => `"${n}"`).join(', ')} FROM read_parquet('${path}')`);
  const cols = duck.getColumns();
  expect.columns.forEach((c, k) => compare('duckdb', f, c.name, cols[k], c.bits));
  const buffer = await asyncBufferFromFile(path);
  const md = await parquetMetadataAsync(buffer);
  const rows = await parquetReadObjects({ file: buffer, compressors });
  expect.columns.forEach((c) => compare('hyparquet', f, c.name, rows.map((r) => r[c.name]), c.bits));
  console.log(`verified ${f}: ${expect.rows} rows, ${md.row_groups.length} row groups, DuckDB and hyparquet agree`);
}
if (failures > 0) {
  console.error(`${failures} mismatches`);
  process.exit(1);
}
