"""Parquet interop with pyarrow (the reference implementation) and Polars (what laddu users write
files with), both directions, with fixtures generated at run time.

* We read what they write: every codec (LZ4_RAW and, relabelled in the footer, the legacy LZ4
  codec with bare blocks), data page v1 and v2, dictionary and plain encodings, several row
  groups and pages, nullable columns, shuffled columns, unrelated columns the reader must skip,
  laddu's column names; compared value for value (float64 bit for bit, float32 widened exactly).
* They read what we write: ``Dataset.write_to`` and the C++ writer (``interop_check write``,
  path in $LADDU_PARQUET_INTEROP_CHECK) read back by pyarrow and Polars: values, schema, row
  groups and statistics.
* Valid files laddu-cpp must reject with an ``ld.DataError`` naming the column and the file
  (event columns of unreadable types, an unsupported codec).

Run: ``ctest --preset relassert -R parquet_interop_arrow`` (or pytest on this file with
PYTHONPATH=build/relassert/python and the test venv's python).
"""

import os
import pathlib
import subprocess
import zlib

import numpy as np
import pytest

VENV = "the test venv (scripts/make-venv.sh)"
pa = pytest.importorskip("pyarrow", reason=f"pyarrow comes from {VENV}")
pq = pytest.importorskip("pyarrow.parquet")
pl = pytest.importorskip("polars", reason=f"polars comes from {VENV}")
import laddu_cpp as ld  # noqa: E402

N = 3500
ROW_GROUP = 1000
P4S = ["p4_0", "p4_1"]
COMPONENTS = ["E", "Px", "Py", "Pz"]
PYARROW_CODECS = ["NONE", "SNAPPY", "ZSTD", "GZIP", "LZ4", "BROTLI"]  # pyarrow's LZ4 is LZ4_RAW
POLARS_CODECS = ["uncompressed", "snappy", "gzip", "lz4", "zstd", "brotli"]


def bits(values):
    """float64 bit patterns, so that -0.0, subnormals and infinities compare exactly."""
    return np.ascontiguousarray(values, dtype=np.float64).view(np.uint64)


def assert_bits_equal(ours, theirs, what):
    ours, theirs = bits(ours), bits(theirs)
    assert ours.shape == theirs.shape, f"{what}: {ours.shape} vs {theirs.shape}"
    bad = np.flatnonzero(ours != theirs)
    assert bad.size == 0, (
        f"{what}: {bad.size} values differ, first at row {bad[0]}: "
        f"{ours[bad[0]]:016x} vs {theirs[bad[0]]:016x}"
    )


def event_columns(rng, n=N):
    """laddu's layout: two p4s (float64 and float32), a weight, float64/float32 aux scalars,
    nullable columns with and without nulls. Values use full mantissas and edge cases."""
    cols = {}
    for p, dtype in zip(P4S, [np.float64, np.float32]):
        for c in COMPONENTS:
            cols[f"{p}_{c}"] = (rng.normal(size=n) * 3.0).astype(dtype)
    special = np.array([0.0, -0.0, 5e-324, -2.2250738585072014e-308, 1.7976931348623157e308,
                        np.inf, -np.inf, 1.0 + 2.0**-52])
    cols["p4_0_Px"][: special.size] = special
    cols["p4_1_Py"][:4] = np.array([-0.0, 1e-45, np.float32(3.4028235e38), -np.inf], np.float32)
    cols["weight"] = rng.choice([-0.5, 1.0, 1.25, 0.1], size=n)
    cols["pol_magnitude"] = rng.uniform(0, 1, size=n)  # aux scalars
    cols["pol_angle"] = rng.uniform(-np.pi, np.pi, size=n).astype(np.float32)
    cols["mass"] = np.round(rng.uniform(0.5, 2.0, size=n), 2)  # few distinct values
    return cols


def null_mask(n, every):
    return np.arange(n) % every == 3


def arrow_table(rng, n=N, shuffle=True):
    """The event columns plus nullable and unrelated ones, in a shuffled order."""
    cols = event_columns(rng, n)
    arrays = {name: pa.array(values) for name, values in cols.items()}
    opt = rng.normal(size=n)
    arrays["opt_nulls"] = pa.array(opt, mask=null_mask(n, 5))
    arrays["opt_nulls_f32"] = pa.array(opt.astype(np.float32), mask=null_mask(n, 7))
    arrays["opt_full"] = pa.array(rng.normal(size=n), mask=np.zeros(n, bool))
    # Unrelated columns the reader must skip.
    arrays["run_label"] = pa.array([f"run{i % 13}" for i in range(n)])
    arrays["event_id"] = pa.array(np.arange(n, dtype=np.int64) * 7 - 3)
    arrays["flag"] = pa.array(np.arange(n, dtype=np.int32) % 3, type=pa.int32())
    arrays["hits"] = pa.array([[float(i), -float(i)][: i % 3] for i in range(n)],
                              type=pa.list_(pa.float64()))
    arrays["is_mc"] = pa.array(np.arange(n) % 2 == 0)
    arrays["track"] = pa.array([{"chi2": float(i), "ndf": i % 5} for i in range(n)])
    names = list(arrays)
    if shuffle:
        names = [names[i] for i in rng.permutation(len(names))]
    return pa.table({name: arrays[name] for name in names})


def expected_scalars(table):
    """laddu's inference: float columns that are neither p4 components nor the weight, in file
    order."""
    out = []
    for field in table.schema:
        if not pa.types.is_floating(field.type) or field.name == "weight":
            continue
        if any(field.name.startswith(p + "_") for p in P4S):
            continue
        out.append(field.name)
    return out


def column_values(table, name):
    """A column as float64 with NaN at nulls (float32 widened exactly)."""
    column = table.column(name).combine_chunks()
    values = column.to_numpy(zero_copy_only=False).astype(np.float64)
    if column.null_count:
        values[~column.is_valid().to_numpy(zero_copy_only=False)] = np.nan
    return values


def check_read(path, table):
    """Reads `path` with laddu-cpp and compares every event column with `table`."""
    data = ld.read_parquet(str(path), nulls="nan")
    assert len(data) == table.num_rows
    assert sorted(data.p4_names()) == P4S
    assert data.scalar_names() == expected_scalars(table)
    for p in P4S:
        p4 = data.p4(p)
        for k, c in enumerate(COMPONENTS):
            assert_bits_equal(p4[:, k], column_values(table, f"{p}_{c}"), f"{path.name} {p}_{c}")
    for name in expected_scalars(table):
        assert_bits_equal(data.column(name), column_values(table, name), f"{path.name} {name}")
    assert_bits_equal(data.weights(), column_values(table, "weight"), f"{path.name} weight")
    # The streaming reader (one row group at a time) gives the same events.
    lazy = ld.read_parquet(str(path), nulls="nan", cache="streaming").to_resident()
    assert_bits_equal(lazy.column("opt_nulls"), data.column("opt_nulls"), "streaming")
    assert_bits_equal(lazy.p4("p4_1")[:, 2], data.p4("p4_1")[:, 2], "streaming")
    return data


def column_chunks(path):
    meta = pq.ParquetFile(path).metadata
    for g in range(meta.num_row_groups):
        rg = meta.row_group(g)
        for c in range(rg.num_columns):
            yield g, rg.column(c)


def first_data_page_type(path, chunk):
    """The PageHeader.type of a chunk's first data page: 0 for DATA_PAGE, 3 for DATA_PAGE_V2
    (pyarrow's metadata does not say). The header is Thrift compact: field 1 (i32) comes first,
    as byte 0x15, then its zigzag varint."""
    with open(path, "rb") as f:
        f.seek(chunk.data_page_offset)
        head = f.read(2)
    assert head[0] == 0x15, f"{path}: unexpected page header {head.hex()}"
    return head[1] >> 1


# --- we read what pyarrow writes -------------------------------------------------------------

PYARROW_LAYOUTS = {
    # name: pq.write_table keyword arguments
    "dict_v1": dict(use_dictionary=True, data_page_version="1.0"),
    "dict_v2": dict(use_dictionary=True, data_page_version="2.0"),
    "plain_v1": dict(use_dictionary=False, data_page_version="1.0"),
    "plain_v2": dict(use_dictionary=False, data_page_version="2.0"),
}


@pytest.mark.parametrize("layout", list(PYARROW_LAYOUTS))
@pytest.mark.parametrize("codec", PYARROW_CODECS)
def test_reads_pyarrow(tmp_path, codec, layout):
    rng = np.random.default_rng(zlib.crc32(f"{codec} {layout}".encode()))
    table = arrow_table(rng)
    path = tmp_path / f"pyarrow_{codec}_{layout}.parquet"
    # Small pages: several data pages per column chunk.
    pq.write_table(table, path, compression=codec, row_group_size=ROW_GROUP,
                   data_page_size=4096, **PYARROW_LAYOUTS[layout])
    meta = pq.ParquetFile(path).metadata
    assert meta.num_row_groups == 4
    want_codec = "UNCOMPRESSED" if codec == "NONE" else codec
    want_page = 3 if layout.endswith("v2") else 0
    for _, chunk in column_chunks(path):
        assert chunk.compression == want_codec
        assert first_data_page_type(path, chunk) == want_page, chunk.path_in_schema
        if chunk.path_in_schema == "mass":
            assert ("RLE_DICTIONARY" in chunk.encodings) == layout.startswith("dict")
    check_read(path, table)


def test_reads_pyarrow_dictionary_fallback_and_byte_stream_split(tmp_path):
    """A dictionary that outgrows its limit falls back to PLAIN pages inside one chunk; floats
    may also be BYTE_STREAM_SPLIT and integers DELTA_BINARY_PACKED."""
    table = arrow_table(np.random.default_rng(7))
    path = tmp_path / "fallback.parquet"
    pq.write_table(table, path, compression="ZSTD", row_group_size=ROW_GROUP,
                   dictionary_pagesize_limit=512, data_page_size=1024)
    chunk = pq.ParquetFile(path).metadata.row_group(0).column(
        table.schema.get_field_index("pol_magnitude"))
    assert {"RLE_DICTIONARY", "PLAIN"} <= set(chunk.encodings)
    check_read(path, table)
    path = tmp_path / "bss.parquet"
    floats = [f.name for f in table.schema if pa.types.is_floating(f.type)]
    pq.write_table(table, path, compression="SNAPPY", row_group_size=ROW_GROUP,
                   use_dictionary=["run_label"], use_byte_stream_split=floats,
                   data_page_version="2.0")
    column = table.schema.get_field_index("p4_1_E")
    chunk = pq.ParquetFile(path).metadata.row_group(0).column(column)
    assert "BYTE_STREAM_SPLIT" in chunk.encodings
    check_read(path, table)


def test_legacy_hadoop_lz4_cannot_be_written_by_pyarrow(tmp_path):
    """The legacy LZ4 codec (Hadoop framing) is read by laddu-cpp (src/data/io/parquet/
    compression_test.cpp); pyarrow 26 only writes LZ4_RAW, so there is no oracle file."""
    table = pa.table({"x": [1.0]})
    with pytest.raises((ValueError, pa.ArrowException), match="(?i)unsupported|lz4_hadoop"):
        pq.write_table(table, tmp_path / "h.parquet", compression="LZ4_HADOOP")


def codec_offsets(footer):
    """Byte offsets of every ColumnMetaData.codec value in a Thrift-compact FileMetaData (path:
    field 4 row_groups -> 1 columns -> 3 meta_data -> 4 codec)."""
    pos, found = 0, []

    def varint():
        nonlocal pos
        shift = value = 0
        while True:
            byte = footer[pos]
            pos += 1
            value |= (byte & 0x7F) << shift
            shift += 7
            if byte < 0x80:
                return value

    def value(kind, path):
        nonlocal pos
        if kind in (1, 2):  # booleans live in the field header
            return
        if kind == 3:
            pos += 1
        elif kind in (4, 5, 6):
            if path[-4:] == (4, 1, 3, 4):
                found.append(pos)
            varint()
        elif kind == 7:
            pos += 8
        elif kind == 8:
            size = varint()
            pos += size
        elif kind in (9, 10):
            head = footer[pos]
            pos += 1
            size = head >> 4 if head >> 4 != 15 else varint()
            for _ in range(size):
                if head & 0x0F in (1, 2):
                    pos += 1  # a bool element is a whole byte
                else:
                    value(head & 0x0F, path)
        elif kind == 12:
            field = 0
            while footer[pos] != 0:
                head = footer[pos]
                pos += 1
                if head >> 4:
                    field += head >> 4
                else:
                    raw = varint()
                    field = (raw >> 1) ^ -(raw & 1)
                value(head & 0x0F, path + (field,))
            pos += 1
        else:
            raise AssertionError(f"Thrift type {kind} (maps) not expected in a footer")

    value(12, ())
    return found


def test_reads_legacy_lz4_codec_with_bare_blocks(tmp_path):
    """Older Arrow wrote bare LZ4 blocks under the legacy LZ4 codec (5); readers try the Hadoop
    framing first, then a bare block. Make such a file from an LZ4_RAW one by changing each
    chunk's codec in the footer (7 -> 5: one zigzag byte, so no size changes)."""
    table = arrow_table(np.random.default_rng(5))
    path = tmp_path / "lz4_legacy.parquet"
    pq.write_table(table, path, compression="LZ4", row_group_size=ROW_GROUP)
    data = bytearray(path.read_bytes())
    length = int.from_bytes(data[-8:-4], "little")
    start = len(data) - 8 - length
    offsets = codec_offsets(bytes(data[start:-8]))
    assert len(offsets) == sum(1 for _ in column_chunks(path))
    for offset in offsets:
        assert data[start + offset] == 14  # zigzag(7): LZ4_RAW
        data[start + offset] = 10  # zigzag(5): LZ4
    path.write_bytes(bytes(data))
    assert pq.read_table(path).equals(table)  # pyarrow reads it too
    check_read(path, table)


def test_unsupported_codec_is_a_data_error_naming_codec_and_remedy(tmp_path):
    """No writer here makes LZO (pyarrow and Polars refuse); relabel a SNAPPY file's chunks."""
    path = tmp_path / "lzo.parquet"
    pq.write_table(p4_table(), path, compression="SNAPPY")
    data = bytearray(path.read_bytes())
    start = len(data) - 8 - int.from_bytes(data[-8:-4], "little")
    for offset in codec_offsets(bytes(data[start:-8])):
        assert data[start + offset] == 2  # zigzag(1): SNAPPY
        data[start + offset] = 6  # zigzag(3): LZO
    path.write_bytes(bytes(data))
    data = ld.read_parquet(str(path))  # file-backed: the footer is read now, the pages later
    with pytest.raises(ld.DataError) as error:
        data.to_resident()
    message = str(error.value)
    assert f"Parquet file '{path}', column 'p4_0_" in message, message
    assert "codec LZO is not supported" in message and "rewrite the file" in message, message


def test_reads_one_file_per_row_group_as_one_dataset(tmp_path):
    table = arrow_table(np.random.default_rng(3))
    for k, start in enumerate(range(0, N, ROW_GROUP)):
        pq.write_table(table.slice(start, ROW_GROUP), tmp_path / f"part{k}.parquet",
                       compression="LZ4")
    data = ld.read_parquet(str(tmp_path / "part*.parquet"), nulls="nan")
    assert_bits_equal(data.column("opt_nulls"), column_values(table, "opt_nulls"), "glob")
    assert_bits_equal(data.weights(), column_values(table, "weight"), "glob weights")


def test_nulls_are_a_data_error_naming_column_row_and_file(tmp_path):
    table = arrow_table(np.random.default_rng(4))
    path = tmp_path / "nulls.parquet"
    pq.write_table(table.select(["p4_0_E", "opt_nulls"]), path, row_group_size=ROW_GROUP)
    with pytest.raises(ld.DataError) as error:
        ld.read_parquet(str(path)).to_resident()
    message = str(error.value)
    assert str(path) in message and "'opt_nulls'" in message and "null at row 3" in message
    # A nullable column without nulls reads with the default policy.
    pq.write_table(table.select(["opt_full", "weight"]), path)
    assert_bits_equal(ld.read_parquet(str(path)).column("opt_full"),
                      column_values(table, "opt_full"), "opt_full")


# --- we read what Polars writes --------------------------------------------------------------

def polars_frame(table):
    return pl.from_arrow(table)


def test_reads_polars_defaults(tmp_path):
    table = arrow_table(np.random.default_rng(11))
    frame = polars_frame(table)
    path = tmp_path / "polars_default.parquet"
    frame.write_parquet(path)
    assert "Polars" in pq.ParquetFile(path).metadata.created_by
    check_read(path, frame.to_arrow())


@pytest.mark.parametrize("codec", POLARS_CODECS)
def test_reads_polars_each_codec(tmp_path, codec):
    table = arrow_table(np.random.default_rng(12))
    frame = polars_frame(table)
    path = tmp_path / f"polars_{codec}.parquet"
    frame.write_parquet(path, compression=codec, row_group_size=ROW_GROUP, data_page_size=2048)
    assert pq.ParquetFile(path).metadata.num_row_groups >= 4
    check_read(path, frame.to_arrow())


def test_reads_polars_laddu_user_file(tmp_path):
    """How a laddu user makes a file: a DataFrame of p4_N_E... and aux columns, no weight."""
    rng = np.random.default_rng(13)
    frame = pl.DataFrame({f"p4_{k}_{c}": rng.normal(size=N) for k in range(3) for c in COMPONENTS}
                         | {"aux_0": rng.normal(size=N).astype(np.float32)})
    path = tmp_path / "user.parquet"
    frame.write_parquet(path, statistics=False)
    data = ld.read_parquet(str(path))
    assert data.p4_names() == ["p4_0", "p4_1", "p4_2"] and data.scalar_names() == ["aux_0"]
    assert_bits_equal(data.weights(), np.ones(N), "unit weights")
    assert_bits_equal(data.p4("p4_2")[:, 3], frame["p4_2_Pz"].to_numpy(), "p4_2_Pz")
    assert_bits_equal(data.column("aux_0"), frame["aux_0"].to_numpy().astype(np.float64), "aux_0")


# --- pyarrow and Polars read what we write ---------------------------------------------------

def check_statistics(path, table):
    """Every chunk's statistics agree with the data: null_count, and min/max over the non-null,
    non-NaN values (absent when the chunk holds a NaN), with the format's signed-zero rule."""
    meta = pq.ParquetFile(path).metadata
    start = 0
    for g in range(meta.num_row_groups):
        rg = meta.row_group(g)
        for c in range(rg.num_columns):
            chunk = rg.column(c)
            column = table.column(chunk.path_in_schema).slice(start, rg.num_rows)
            valid = column.is_valid().to_numpy(zero_copy_only=False)
            present = column_values(table, chunk.path_in_schema)[start:start + rg.num_rows][valid]
            stats = chunk.statistics
            assert chunk.is_stats_set and stats is not None, f"{path.name}: no statistics"
            assert stats.null_count == column.null_count, chunk.path_in_schema
            if np.isnan(present).any() or present.size == 0:
                assert not stats.has_min_max, chunk.path_in_schema
                continue
            assert stats.has_min_max, chunk.path_in_schema
            lo, hi = present.min(), present.max()
            assert stats.min == lo and stats.max == hi, (chunk.path_in_schema, stats, lo, hi)
            if lo == 0:
                assert np.signbit(stats.min), f"{chunk.path_in_schema}: a zero min must be -0.0"
            if hi == 0:
                assert not np.signbit(stats.max), f"{chunk.path_in_schema}: zero max must be +0.0"
        start += rg.num_rows


def check_readers_agree(path):
    """pyarrow (with full validation) and Polars read the same values; returns pyarrow's table."""
    table = pq.read_table(path)
    table.validate(full=True)
    frame = pl.read_parquet(path)
    assert frame.columns == table.column_names
    for name in table.column_names:
        assert_bits_equal(frame[name].cast(pl.Float64).fill_null(np.nan).to_numpy(),
                          column_values(table, name), f"polars {name}")
    # Row group by row group, too.
    parquet_file = pq.ParquetFile(path)
    start = 0
    for g in range(parquet_file.num_row_groups):
        part = parquet_file.read_row_group(g)
        assert part.equals(table.slice(start, part.num_rows))
        start += part.num_rows
    assert start == table.num_rows
    return table


@pytest.mark.parametrize("precision", ["f64", "f32"])
def test_pyarrow_and_polars_read_write_to(tmp_path, precision):
    rng = np.random.default_rng(21)
    n = 2000
    p4s = {p: rng.normal(size=(n, 4)) * 10 for p in ["beam", "proton", "kshort1"]}
    p4s["beam"][:3, 1] = [0.0, -0.0, 5e-324]
    scalars = {"pol_angle": rng.uniform(-3, 3, n), "pol_magnitude": np.zeros(n)}
    scalars["pol_magnitude"][::2] = -0.0  # a chunk of zeros of both signs
    weights = rng.choice([-1.0, 0.5, 2.0], n)
    data = ld.Dataset.from_arrays(p4s=p4s, scalars=scalars, weights=weights)
    path = tmp_path / f"laddu_{precision}.parquet"
    data.write_to(ld.ParquetSink(str(path), precision=precision))

    table = check_readers_agree(path)
    dtype = pa.float64() if precision == "f64" else pa.float32()
    names = [f"{p}_{c}" for p in p4s for c in ["e", "px", "py", "pz"]]  # from_arrays order
    names += ["pol_angle", "pol_magnitude", "weight"]
    assert table.schema.names == names  # docs/data.md: name_e, name_px, ..., scalars, weight
    for field in table.schema:
        assert field.type == dtype and not field.nullable, field
    narrow = (lambda x: x) if precision == "f64" else (lambda x: np.float32(x).astype(np.float64))
    for p, array in p4s.items():
        for k, c in enumerate(["e", "px", "py", "pz"]):
            assert_bits_equal(column_values(table, f"{p}_{c}"), narrow(array[:, k]), f"{p}_{c}")
    for name, values in scalars.items():
        assert_bits_equal(column_values(table, name), narrow(values), name)
    assert_bits_equal(column_values(table, "weight"), narrow(weights), "weight")
    meta = pq.ParquetFile(path).metadata
    assert meta.num_rows == n and meta.num_row_groups == 1
    for _, chunk in column_chunks(path):
        assert chunk.physical_type == ("DOUBLE" if precision == "f64" else "FLOAT")
        assert chunk.compression == "ZSTD"
    check_statistics(path, table)
    # And laddu-cpp reads its own file back unchanged.
    again = ld.read_parquet(str(path))
    assert_bits_equal(again.p4("kshort1"), narrow(p4s["kshort1"]).reshape(n, 4), "round trip")


def read_sidecar(path):
    """interop_check's sidecar: 'rows N', then per column 'column NAME' and N lines of hex bits
    or 'null'."""
    lines = pathlib.Path(path).read_text().splitlines()
    rows = int(lines[0].split()[1])
    columns = {}
    for i in range(1, len(lines), rows + 1):
        name = lines[i].removeprefix("column ")
        raw = lines[i + 1:i + 1 + rows]
        values = np.array([np.nan if v == "null" else 0.0 for v in raw])
        valid = np.array([v != "null" for v in raw])
        values[valid] = np.array([int(v, 16) for v in raw if v != "null"],
                                 dtype=np.uint64).view(np.float64)
        columns[name] = (values, valid)
    return rows, columns


@pytest.fixture(scope="module")
def cpp_written(tmp_path_factory):
    """Files the C++ writer makes (every codec, FLOAT/DOUBLE/INT32/INT64, OPTIONAL columns with
    nulls, 1000-row groups), with sidecars of the exact values."""
    checker = os.environ.get("LADDU_PARQUET_INTEROP_CHECK")
    if not checker:
        pytest.skip("LADDU_PARQUET_INTEROP_CHECK (the interop_check binary) is not set")
    out = tmp_path_factory.mktemp("cpp_written")
    subprocess.run([checker, "write", str(out)], check=True, capture_output=True)
    return out


CPP_FILES = ["laddu_uncompressed", "laddu_snappy", "laddu_zstd", "laddu_gzip",
             "laddu_dataset_f32"]
CPP_TYPES = {"d": ("DOUBLE", pa.float64()), "f": ("FLOAT", pa.float32()),
             "i": ("INT32", pa.int32()), "l": ("INT64", pa.int64()),
             "dnull": ("DOUBLE", pa.float64()), "inull": ("INT32", pa.int32())}


@pytest.mark.parametrize("name", CPP_FILES)
def test_pyarrow_and_polars_read_the_cpp_writer(cpp_written, name):
    path = cpp_written / f"{name}.parquet"
    rows, expected = read_sidecar(f"{path}.expect")
    table = check_readers_agree(path)
    assert table.num_rows == rows and table.column_names == list(expected)
    for column, (values, valid) in expected.items():
        assert_bits_equal(column_values(table, column), values, f"{name} {column}")
        field = table.schema.field(column)
        assert field.nullable == (not valid.all() or column.endswith("null")), field
        if name != "laddu_dataset_f32":
            assert field.type == CPP_TYPES[column][1], field
    meta = pq.ParquetFile(path).metadata
    group = 999 if name == "laddu_dataset_f32" else 1000
    assert [meta.row_group(g).num_rows for g in range(meta.num_row_groups)] == \
        [group] * (rows // group) + ([rows % group] if rows % group else [])
    check_statistics(path, table)


# --- valid files laddu-cpp rejects -----------------------------------------------------------

def p4_table(n=10, **replace):
    columns = {f"p4_0_{c}": pa.array(np.linspace(1, 2, n) + k) for k, c in enumerate(COMPONENTS)}
    columns["weight"] = pa.array(np.ones(n))
    columns.update(replace)
    return pa.table(columns)


def strings(n=10):
    return pa.array([str(1.5 + i) for i in range(n)])


REJECTED = {
    # name: (table, the column the error must name, a fragment of the message)
    "p4_string": (lambda: p4_table(p4_0_E=strings()), "p4_0_E", "BYTE_ARRAY"),
    "p4_int96": (lambda: p4_table(p4_0_Px=pa.array(np.arange(10).astype("datetime64[ns]"))),
                 "p4_0_Px", "INT96"),
    "p4_float16": (lambda: p4_table(p4_0_Py=pa.array(np.ones(10, np.float16))), "p4_0_Py",
                   "FIXED_LEN_BYTE_ARRAY"),
    "p4_list": (lambda: p4_table(p4_0_Pz=pa.array([[1.0]] * 10)), "p4_0_Pz",
                "DOUBLE nested in a list or struct"),
    "weight_string": (lambda: p4_table(weight=strings()), "weight", "BYTE_ARRAY"),
    "weight_int64": (lambda: p4_table(weight=pa.array(np.ones(10, np.int64))), "weight", "INT64"),
    "weight_decimal": (lambda: p4_table(weight=pa.array([1] * 10, pa.decimal128(5, 2))), "weight",
                       "FIXED_LEN_BYTE_ARRAY"),
    "weight_bool": (lambda: p4_table(weight=pa.array([True] * 10)), "weight", "BOOLEAN"),
}


@pytest.mark.parametrize("case", list(REJECTED))
def test_rejects_unreadable_event_columns(tmp_path, case):
    make, column, fragment = REJECTED[case]
    path = tmp_path / f"bad_{case}.parquet"
    pq.write_table(make(), path, use_deprecated_int96_timestamps=True)
    for read in (lambda: ld.read_parquet(str(path)),
                 lambda: ld.read_parquet(str(path), cache="streaming")):
        with pytest.raises(ld.DataError) as error:
            read()
        message = str(error.value)
        assert f"Parquet file '{path}'" in message, message
        assert f"column '{column}'" in message and fragment in message, message


def test_unreadable_unrelated_columns_are_skipped(tmp_path):
    """The same types under names that are not event columns are skipped silently."""
    table = p4_table(time=pa.array(np.arange(10).astype("datetime64[ns]")), label=strings(),
                     half=pa.array(np.ones(10, np.float16)), hits=pa.array([[1.0]] * 10),
                     k_E=strings())
    path = tmp_path / "skipped.parquet"
    pq.write_table(table, path, use_deprecated_int96_timestamps=True)
    data = ld.read_parquet(str(path))
    assert data.p4_names() == ["p4_0"] and data.scalar_names() == []


def test_files_with_different_schemas_name_the_file(tmp_path):
    pq.write_table(p4_table(), tmp_path / "a.parquet")
    pq.write_table(p4_table().drop_columns(["p4_0_Py"]), tmp_path / "b.parquet")
    with pytest.raises(ld.DataError, match=r"b\.parquet' has schema .* \(no column 'p4_0_Py' here\)"):
        ld.read_parquet(str(tmp_path / "*.parquet"))
