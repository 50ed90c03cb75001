// The streamer info a written file carries: ROOT's class descriptions (TStreamerInfo) of every
// class a flat TTree of TLeafD/TLeafF branches is made of, so readers that decode objects from
// the file's own descriptions (jsroot, ROOT for classes it lacks) can read the tree.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace laddu::data::root {

/// The streamed TList "StreamerInfo" (the object after its key): TStreamerInfo records of
/// TObject, TString, TNamed, TAttLine, TAttFill, TAttMarker, TCollection, TSeqCollection,
/// TObjArray, TList, ROOT::TIOFeatures, TLeaf, TLeafF, TLeafD, TBranch, TRefTable, TBranchRef
/// and TTree at the class versions the writer streams.
[[nodiscard]] std::vector<std::uint8_t> streamer_info_list();

/// The class checksum ROOT records for `class_name` (0 for a class not in the list).
[[nodiscard]] std::uint32_t class_checksum(std::string_view class_name) noexcept;

}  // namespace laddu::data::root
