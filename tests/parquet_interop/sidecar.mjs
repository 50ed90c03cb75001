// The expected-values sidecar shared by the fixture generator, the laddu-cpp checker and the
// reverse check: "rows N", then per column "column NAME", then one line per row holding the IEEE
// bits of the value as a double in hex, or "null".
import { writeFileSync, readFileSync } from 'node:fs';

const view = new DataView(new ArrayBuffer(8));

export function doubleBits(x) {
  view.setFloat64(0, x, true);
  return view.getBigUint64(0, true).toString(16).padStart(16, '0');
}

export function toDouble(v) {
  if (v === null || v === undefined) return null;
  return typeof v === 'bigint' ? Number(v) : Number(v);
}

// columns: [{ name, values }] with values as numbers, bigints or nulls.
export function writeSidecar(path, rows, columns) {
  const lines = [`rows ${rows}`];
  for (const { name, values } of columns) {
    if (values.length !== rows) throw new Error(`${name}: ${values.length} values, ${rows} rows`);
    lines.push(`column ${name}`);
    for (const v of values) {
      const d = toDouble(v);
      lines.push(d === null ? 'null' : doubleBits(d));
    }
  }
  writeFileSync(path, lines.join('\n') + '\n');
}

export function readSidecar(path) {
  const lines = readFileSync(path, 'utf8').trim().split('\n');
  const rows = Number(lines[0].split(' ')[1]);
  const columns = [];
  let i = 1;
  while (i < lines.length) {
    const name = lines[i].slice('column '.length);
    columns.push({ name, bits: lines.slice(i + 1, i + 1 + rows) });
    i += 1 + rows;
  }
  return { rows, columns };
}
