// DuckDB side of bench/parquet_bench.sh.
//   node parquet_bench.mjs make FILE [ROWS] [CODEC]  writes ROWS x 16 float64 columns (c0..c15)
//   node parquet_bench.mjs read FILE [REPS]          times DuckDB reading every column
import { DuckDBInstance } from '@duckdb/node-api';

const [mode, file, arg, codec] = process.argv.slice(2);
const db = await DuckDBInstance.create(':memory:');
const con = await db.connect();
const cols = Array.from({ length: 16 }, (_, k) => `c${k}`);
if (mode === 'make') {
  const rows = Number(arg ?? 1e7);
  const exprs = cols.map((c, k) => `sin(i * ${k + 1} * 0.001) * ${k + 1} + i * 1e-9 AS ${c}`);
  await con.run(`COPY (SELECT ${exprs.join(', ')} FROM range(${rows}) t(i))
      TO '${file}' (FORMAT PARQUET, COMPRESSION '${codec ?? 'snappy'}')`);
  console.log(`wrote ${file}: ${rows} rows x 16 float64, ${codec ?? 'snappy'}`);
} else if (mode === 'read') {
  const reps = Number(arg ?? 3);
  const n = Number((await con.runAndReadAll(`SELECT count(*) AS n FROM read_parquet('${file}')`)).getRowObjects()[0].n);
  const bytes = n * 16 * 8;
  for (const threads of [1, 0]) {
    if (threads > 0) await con.run(`SET threads = ${threads}`);
    else await con.run('RESET threads');
    const label = threads > 0 ? '1 thread' : (await con.runAndReadAll('SELECT current_setting(\'threads\') AS t')).getRowObjects()[0].t + ' threads';
    let best = Infinity;
    for (let r = 0; r < reps; r++) {
      const t0 = process.hrtime.bigint();
      // Aggregates force DuckDB to decode every value of every column.
      await con.runAndReadAll(`SELECT ${cols.map((c) => `sum(${c})`).join(', ')} FROM read_parquet('${file}')`);
      best = Math.min(best, Number(process.hrtime.bigint() - t0) / 1e9);
    }
    console.log(`duckdb (${label}): ${best.toFixed(3)} s, ${(bytes / best / 1e6).toFixed(1)} MB/s`);
  }
}
