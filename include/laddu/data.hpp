// laddu/data: event data as columns of doubles, Parquet I/O without Arrow and flat ROOT TTree
// reading without ROOT.
//
// Schema (schema.hpp: laddu's column naming conventions) -> EventBatch (event_batch.hpp: SoA
// chunks) -> EventSource (event_source.hpp: MemorySource, ParquetSource, root.hpp's
// RootSource) -> Dataset (dataset.hpp: resident events and their operations). Entry point:
// read_parquet(), read_root() or Dataset::from_arrays(). describe.hpp backs `laddu-cpp data
// info`; histogram.hpp holds laddu's weighted Histogram and the N-dimensional HistogramNd.
#pragma once

#include <laddu/data/dataset.hpp>
#include <laddu/data/describe.hpp>
#include <laddu/data/event_batch.hpp>
#include <laddu/data/event_data.hpp>
#include <laddu/data/event_source.hpp>
#include <laddu/data/histogram.hpp>
#include <laddu/data/parquet.hpp>
#include <laddu/data/root.hpp>
#include <laddu/data/schema.hpp>
