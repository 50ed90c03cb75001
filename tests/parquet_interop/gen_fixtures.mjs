// Writes Parquet fixtures with two independent implementations (DuckDB and hyparquet-writer)
// into the directory given as argv[2], each with a sidecar of the exact expected values.
// Coverage: codecs uncompressed/snappy/zstd/gzip, data pages v1 and v2, PLAIN, dictionary,
// BYTE_STREAM_SPLIT and DELTA_BINARY_PACKED encodings, FLOAT/DOUBLE/INT32/INT64, required and
// optional columns with and without nulls, several row groups.
import { DuckDBInstance } from '@duckdb/node-api';
import { parquetWriteFile } from 'hyparquet-writer';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeSidecar } from './sidecar.mjs';

const out = process.argv[2];
if (!out) throw new Error('usage: node gen_fixtures.mjs OUTDIR');

const con = await (await DuckDBInstance.create(':memory:')).connect();
const N = 5000;
await con.run(`CREATE TABLE t (
    d DOUBLE NOT NULL, f FLOAT NOT NULL, i INTEGER NOT NULL, l BIGINT NOT NULL,
    dict DOUBLE NOT NULL, opt_nulls DOUBLE, opt_full DOUBLE, fopt FLOAT, iopt INTEGER)`);
await con.run(`INSERT INTO t SELECT
    sin(i) * 1000 + i * 1e-7,
    CAST(cos(i) * 10 AS FLOAT),
    CAST((i * 37) % 100003 - 50000 AS INTEGER),
    CAST(i AS BIGINT) * 1000003 * 1000 - 12345678901,
    (i % 7) * 0.25 + 0.1,
    CASE WHEN i % 5 = 0 THEN NULL ELSE i * 0.5 + 1e-3 * sin(i) END,
    i * 1.5,
    CASE WHEN i % 3 = 0 THEN NULL ELSE CAST(i AS FLOAT) / 7 END,
    CASE WHEN i % 4 = 1 THEN NULL ELSE CAST(i % 9 AS INTEGER) END
  FROM range(${N}) r(i) ORDER BY i`);
const reader = await con.runAndReadAll('SELECT * FROM t');
const names = reader.columnNames();
const cols = reader.getColumns();
const columns = names.map((name, k) => ({ name, values: cols[k] }));

const coverage = [];
for (const codec of ['uncompressed', 'snappy', 'zstd', 'gzip']) {
  for (const version of ['V1', 'V2']) {
    const file = join(out, `duckdb_${codec}_${version.toLowerCase()}.parquet`);
    await con.run(`COPY t TO '${file}' (FORMAT PARQUET, COMPRESSION '${codec}',
        ROW_GROUP_SIZE 2048, PARQUET_VERSION ${version})`);
    writeSidecar(`${file}.expect`, N, columns);
    const md = (await con.runAndReadAll(`SELECT path_in_schema, compression, encodings,
        row_group_id FROM parquet_metadata('${file}')`)).getRowObjects();
    coverage.push(...md.map((r) => `${file} rg${r.row_group_id} ${r.path_in_schema} ${r.compression} ${r.encodings}`));
  }
}
const schema = (await con.runAndReadAll(`SELECT name, type, repetition_type
    FROM parquet_schema('${join(out, 'duckdb_zstd_v2.parquet')}')`)).getRowObjects();
coverage.push(...schema.map((r) => `schema ${r.name} ${r.type} ${r.repetition_type}`));

// hyparquet-writer: REQUIRED and OPTIONAL columns with explicit encodings.
const M = 3000;
const d = Float64Array.from({ length: M }, (_, i) => Math.sin(i) * 123.456 + i);
const f = Float32Array.from({ length: M }, (_, i) => Math.cos(i) * 3.5);
const i32 = Int32Array.from({ length: M }, (_, i) => (i * 7919) % 65536 - 32768);
const i64 = BigInt64Array.from({ length: M }, (_, i) => BigInt(i) * 1234567891n - 99999999999n);
const dictv = Float64Array.from({ length: M }, (_, i) => [0.5, -1.25, 3.0][i % 3]);
const bss = Float64Array.from({ length: M }, (_, i) => Math.exp(Math.sin(i)));
const bssf = Float32Array.from({ length: M }, (_, i) => Math.tan(i * 0.01));
const optd = Array.from({ length: M }, (_, i) => (i % 6 === 2 ? null : i / 3));
for (const codec of ['UNCOMPRESSED', 'SNAPPY']) {
  const file = join(out, `hyparquet_${codec.toLowerCase()}.parquet`);
  const columnData = [
    { name: 'd', data: d, type: 'DOUBLE', nullable: false, encoding: 'PLAIN' },
    { name: 'f', data: f, type: 'FLOAT', nullable: false, encoding: 'PLAIN' },
    { name: 'i', data: i32, type: 'INT32', nullable: false, encoding: 'PLAIN' },
    { name: 'l', data: i64, type: 'INT64', nullable: false, encoding: 'PLAIN' },
    { name: 'dict', data: dictv, type: 'DOUBLE', nullable: false },
    { name: 'bss', data: bss, type: 'DOUBLE', nullable: false, encoding: 'BYTE_STREAM_SPLIT' },
    { name: 'bssf', data: bssf, type: 'FLOAT', nullable: false, encoding: 'BYTE_STREAM_SPLIT' },
    { name: 'di', data: i32, type: 'INT32', nullable: false, encoding: 'DELTA_BINARY_PACKED' },
    { name: 'dl', data: i64, type: 'INT64', nullable: false, encoding: 'DELTA_BINARY_PACKED' },
    { name: 'optd', data: optd, type: 'DOUBLE', nullable: true },
  ];
  parquetWriteFile({ filename: file, codec, rowGroupSize: 1000, columnData });
  writeSidecar(`${file}.expect`, M, columnData.map(({ name, data }) => ({ name, values: Array.from(data) })));
}
writeFileSync(join(out, 'coverage.txt'), coverage.join('\n') + '\n');
console.log(`gen_fixtures: wrote ${8 + 2} fixtures to ${out}`);
