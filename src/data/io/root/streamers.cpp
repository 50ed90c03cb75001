// TStreamerInfo records generated from a table of ROOT's class layouts (names, ROOT type codes,
// sizes and checksums as ROOT 6 records them), each streamed as ROOT streams the TStreamerInfo
// and TStreamerElement classes: a TNamed, the checksum and class version, then a TObjArray of
// elements, each a TStreamerElement (version 4) plus its kind's own members.
#include "streamers.hpp"

#include <span>
#include <string_view>

#include "out_buffer.hpp"

namespace laddu::data::root {

namespace {

/// The TStreamerElement subclasses a table entry may be.
enum class Kind : unsigned char {
    kBase,           ///< TStreamerBase: a base class (its version follows)
    kBasic,          ///< TStreamerBasicType: a number
    kString,         ///< TStreamerString: a TString
    kObject,         ///< TStreamerObject: a TObject-derived member
    kObjectAny,      ///< TStreamerObjectAny: a non-TObject class member
    kObjectPointer,  ///< TStreamerObjectPointer: a pointer to a TObject
    kBasicPointer,   ///< TStreamerBasicPointer: an array counted by another member
    kStl,            ///< TStreamerSTL: a std:: container
};

// A row of the constant streamer tables below, written in this member order; its padding does
// not matter. NOLINTNEXTLINE(clang-analyzer-optin.performance.Padding)
struct Element {
    Kind kind;
    std::string_view name;
    std::string_view title;
    std::int32_t type;  ///< ROOT's EDataType / TVirtualStreamerInfo code
    std::int32_t size;
    std::string_view type_name;
    /// kBase: the base's version; kBasicPointer: the counter's class version; kStl: fSTLtype.
    std::int32_t extra = 0;
    std::string_view count_name = {};   ///< kBasicPointer: the counter member
    std::string_view count_class = {};  ///< kBasicPointer: its class
};

struct ClassLayout {
    std::string_view name;
    std::uint32_t checksum;
    std::int32_t version;
    std::span<const Element> elements;
};

// ROOT type codes used below.
constexpr std::int32_t kShort = 2;
constexpr std::int32_t kInt = 3;
constexpr std::int32_t kFloat = 5;
constexpr std::int32_t kCounter = 6;
constexpr std::int32_t kDouble = 8;
constexpr std::int32_t kUChar = 11;
constexpr std::int32_t kUInt = 13;
constexpr std::int32_t kBits = 15;
constexpr std::int32_t kLong64 = 16;
constexpr std::int32_t kBool = 18;
constexpr std::int32_t kOffsetP = 40;  // + the element type: a counted array
constexpr std::int32_t kObject = 61;
constexpr std::int32_t kAny = 62;
constexpr std::int32_t kObjectP = 64;
constexpr std::int32_t kTString = 65;
constexpr std::int32_t kTObject = 66;
constexpr std::int32_t kTNamed = 67;
constexpr std::int32_t kStlType = 500;

constexpr Element kTObjectElements[] = {
    {Kind::kBasic, "fUniqueID", "object unique identifier", kUInt, 4, "unsigned int"},
    {Kind::kBasic, "fBits", "bit field status word", kBits, 4, "unsigned int"},
};
constexpr Element kTNamedElements[] = {
    {Kind::kBase, "TObject", "Basic ROOT object", kTObject, 0, "BASE", 1},
    {Kind::kString, "fName", "object identifier", kTString, 24, "TString"},
    {Kind::kString, "fTitle", "object title", kTString, 24, "TString"},
};
constexpr Element kTAttLineElements[] = {
    {Kind::kBasic, "fLineColor", "Line color", kShort, 2, "short"},
    {Kind::kBasic, "fLineStyle", "Line style", kShort, 2, "short"},
    {Kind::kBasic, "fLineWidth", "Line width", kShort, 2, "short"},
};
constexpr Element kTAttFillElements[] = {
    {Kind::kBasic, "fFillColor", "Fill area color", kShort, 2, "short"},
    {Kind::kBasic, "fFillStyle", "Fill area style", kShort, 2, "short"},
};
constexpr Element kTAttMarkerElements[] = {
    {Kind::kBasic, "fMarkerColor", "Marker color", kShort, 2, "short"},
    {Kind::kBasic, "fMarkerStyle", "Marker style", kShort, 2, "short"},
    {Kind::kBasic, "fMarkerSize", "Marker size", kFloat, 4, "float"},
};
constexpr Element kTCollectionElements[] = {
    {Kind::kBase, "TObject", "Basic ROOT object", kTObject, 0, "BASE", 1},
    {Kind::kString, "fName", "name of the collection", kTString, 24, "TString"},
    {Kind::kBasic, "fSize", "number of elements in collection", kInt, 4, "int"},
};
constexpr Element kTSeqCollectionElements[] = {
    {Kind::kBase, "TCollection", "Collection abstract base class", 0, 0, "BASE", 3},
};
constexpr Element kTObjArrayElements[] = {
    {Kind::kBase, "TSeqCollection", "Sequenceable collection ABC", 0, 0, "BASE", 0},
    {Kind::kBasic, "fLowerBound", "Lower bound of the array", kInt, 4, "int"},
    {Kind::kBasic, "fLast", "Last element in array containing an object", kInt, 4, "int"},
};
constexpr Element kTListElements[] = {
    {Kind::kBase, "TSeqCollection", "Sequenceable collection ABC", 0, 0, "BASE", 0},
};
constexpr Element kTIOFeaturesElements[] = {
    {Kind::kBasic, "fIOBits", "", kUChar, 1, "unsigned char"},
};
constexpr Element kTLeafElements[] = {
    {Kind::kBase, "TNamed", "The basis for a named object (name, title)", kTNamed, 0, "BASE", 1},
    {Kind::kBasic, "fLen", "Number of fixed length elements in the leaf's data.", kInt, 4, "int"},
    {Kind::kBasic, "fLenType", "Number of bytes for this data type", kInt, 4, "int"},
    {Kind::kBasic, "fOffset", "Offset in ClonesArray object (if one)", kInt, 4, "int"},
    {Kind::kBasic, "fIsRange", "(=kTRUE if leaf has a range, kFALSE otherwise)", kBool, 1, "bool"},
    {Kind::kBasic, "fIsUnsigned", "(=kTRUE if unsigned, kFALSE otherwise)", kBool, 1, "bool"},
    {Kind::kObjectPointer, "fLeafCount",
     "Pointer to Leaf count if variable length (we do not own the counter)", kObjectP, 8, "TLeaf*"},
};
constexpr Element kTLeafFElements[] = {
    {Kind::kBase, "TLeaf", "Leaf: description of a Branch data type", 0, 0, "BASE", 2},
    {Kind::kBasic, "fMinimum", "Minimum value if leaf range is specified", kFloat, 4, "float"},
    {Kind::kBasic, "fMaximum", "Maximum value if leaf range is specified", kFloat, 4, "float"},
};
constexpr Element kTLeafDElements[] = {
    {Kind::kBase, "TLeaf", "Leaf: description of a Branch data type", 0, 0, "BASE", 2},
    {Kind::kBasic, "fMinimum", "Minimum value if leaf range is specified", kDouble, 8, "double"},
    {Kind::kBasic, "fMaximum", "Maximum value if leaf range is specified", kDouble, 8, "double"},
};
constexpr Element kTBranchElements[] = {
    {Kind::kBase, "TNamed", "The basis for a named object (name, title)", kTNamed, 0, "BASE", 1},
    {Kind::kBase, "TAttFill", "Fill area attributes", 0, 0, "BASE", 2},
    {Kind::kBasic, "fCompress", "Compression level and algorithm", kInt, 4, "int"},
    {Kind::kBasic, "fBasketSize", "Initial Size of  Basket Buffer", kInt, 4, "int"},
    {Kind::kBasic, "fEntryOffsetLen", "Initial Length of fEntryOffset table in the basket buffers",
     kInt, 4, "int"},
    {Kind::kBasic, "fWriteBasket", "Last basket number written", kInt, 4, "int"},
    {Kind::kBasic, "fEntryNumber", "Current entry number (last one filled in this branch)", kLong64,
     8, "Long64_t"},
    {Kind::kObjectAny, "fIOFeatures", "IO features for newly-created baskets.", kAny, 1,
     "ROOT::TIOFeatures"},
    {Kind::kBasic, "fOffset", "Offset of this branch", kInt, 4, "int"},
    {Kind::kBasic, "fMaxBaskets", "Maximum number of Baskets so far", kCounter, 4, "int"},
    {Kind::kBasic, "fSplitLevel", "Branch split level", kInt, 4, "int"},
    {Kind::kBasic, "fEntries", "Number of entries", kLong64, 8, "Long64_t"},
    {Kind::kBasic, "fFirstEntry", "Number of the first entry in this branch", kLong64, 8,
     "Long64_t"},
    {Kind::kBasic, "fTotBytes", "Total number of bytes in all leaves before compression", kLong64,
     8, "Long64_t"},
    {Kind::kBasic, "fZipBytes", "Total number of bytes in all leaves after compression", kLong64, 8,
     "Long64_t"},
    {Kind::kObject, "fBranches", "-> List of Branches of this branch", kObject, 64, "TObjArray"},
    {Kind::kObject, "fLeaves", "-> List of leaves of this branch", kObject, 64, "TObjArray"},
    {Kind::kObject, "fBaskets", "-> List of baskets of this branch", kObject, 64, "TObjArray"},
    {Kind::kBasicPointer, "fBasketBytes", "[fMaxBaskets] Length of baskets on file",
     kOffsetP + kInt, 4, "int*", 13, "fMaxBaskets", "TBranch"},
    {Kind::kBasicPointer, "fBasketEntry", "[fMaxBaskets] Table of first entry in each basket",
     kOffsetP + kLong64, 8, "Long64_t*", 13, "fMaxBaskets", "TBranch"},
    {Kind::kBasicPointer, "fBasketSeek", "[fMaxBaskets] Addresses of baskets on file",
     kOffsetP + kLong64, 8, "Long64_t*", 13, "fMaxBaskets", "TBranch"},
    {Kind::kString, "fFileName",
     "Name of file where buffers are stored (\"\" if in same file as Tree header)", kTString, 24,
     "TString"},
};
constexpr Element kTRefTableElements[] = {
    {Kind::kBase, "TObject", "Basic ROOT object", kTObject, 0, "BASE", 1},
    {Kind::kBasic, "fSize", "dummy for backward compatibility", kInt, 4, "int"},
    {Kind::kObjectPointer, "fParents",
     "array of Parent objects  (eg TTree branch) holding the referenced objects", kObjectP, 8,
     "TObjArray*"},
    {Kind::kObjectPointer, "fOwner", "Object owning this TRefTable", kObjectP, 8, "TObject*"},
    {Kind::kStl, "fProcessGUIDs", "UUIDs of TProcessIDs used in fParentIDs", kStlType, 24,
     "vector<string>", 1},
};
constexpr Element kTBranchRefElements[] = {
    {Kind::kBase, "TBranch", "Branch descriptor", 0, 0, "BASE", 13},
    {Kind::kObjectPointer, "fRefTable", "pointer to the TRefTable", kObjectP, 8, "TRefTable*"},
};
constexpr Element kTTreeElements[] = {
    {Kind::kBase, "TNamed", "The basis for a named object (name, title)", kTNamed, 0, "BASE", 1},
    {Kind::kBase, "TAttLine", "Line attributes", 0, 0, "BASE", 2},
    {Kind::kBase, "TAttFill", "Fill area attributes", 0, 0, "BASE", 2},
    {Kind::kBase, "TAttMarker", "Marker attributes", 0, 0, "BASE", 2},
    {Kind::kBasic, "fEntries", "Number of entries", kLong64, 8, "Long64_t"},
    {Kind::kBasic, "fTotBytes", "Total number of bytes in all branches before compression", kLong64,
     8, "Long64_t"},
    {Kind::kBasic, "fZipBytes", "Total number of bytes in all branches after compression", kLong64,
     8, "Long64_t"},
    {Kind::kBasic, "fSavedBytes", "Number of autosaved bytes", kLong64, 8, "Long64_t"},
    {Kind::kBasic, "fFlushedBytes", "Number of auto-flushed bytes", kLong64, 8, "Long64_t"},
    {Kind::kBasic, "fWeight", "Tree weight (see TTree::SetWeight)", kDouble, 8, "double"},
    {Kind::kBasic, "fTimerInterval", "Timer interval in milliseconds", kInt, 4, "int"},
    {Kind::kBasic, "fScanField", "Number of runs before prompting in Scan", kInt, 4, "int"},
    {Kind::kBasic, "fUpdate", "Update frequency for EntryLoop", kInt, 4, "int"},
    {Kind::kBasic, "fDefaultEntryOffsetLen",
     "Initial Length of fEntryOffset table in the basket buffers", kInt, 4, "int"},
    {Kind::kBasic, "fNClusterRange",
     "Number of Cluster range in addition to the one defined by 'AutoFlush'", kCounter, 4, "int"},
    {Kind::kBasic, "fMaxEntries", "Maximum number of entries in case of circular buffers", kLong64,
     8, "Long64_t"},
    {Kind::kBasic, "fMaxEntryLoop", "Maximum number of entries to process", kLong64, 8, "Long64_t"},
    {Kind::kBasic, "fMaxVirtualSize", "Maximum total size of buffers kept in memory", kLong64, 8,
     "Long64_t"},
    {Kind::kBasic, "fAutoSave",
     "Autosave tree when fAutoSave entries written or -fAutoSave (compressed) bytes produced",
     kLong64, 8, "Long64_t"},
    {Kind::kBasic, "fAutoFlush",
     "Auto-flush tree when fAutoFlush entries written or -fAutoFlush (compressed) bytes produced",
     kLong64, 8, "Long64_t"},
    {Kind::kBasic, "fEstimate", "Number of entries to estimate histogram limits", kLong64, 8,
     "Long64_t"},
    {Kind::kBasicPointer, "fClusterRangeEnd", "[fNClusterRange] Last entry of a cluster range.",
     kOffsetP + kLong64, 8, "Long64_t*", 20, "fNClusterRange", "TTree"},
    {Kind::kBasicPointer, "fClusterSize",
     "[fNClusterRange] Number of entries in each cluster for a given range.", kOffsetP + kLong64, 8,
     "Long64_t*", 20, "fNClusterRange", "TTree"},
    {Kind::kObjectAny, "fIOFeatures",
     "IO features to define for newly-written baskets and branches.", kAny, 1, "ROOT::TIOFeatures"},
    {Kind::kObject, "fBranches", "List of Branches", kObject, 64, "TObjArray"},
    {Kind::kObject, "fLeaves", "Direct pointers to individual branch leaves", kObject, 64,
     "TObjArray"},
    {Kind::kObjectPointer, "fAliases",
     "List of aliases for expressions based on the tree branches.", kObjectP, 8, "TList*"},
    {Kind::kObjectAny, "fIndexValues", "Sorted index values", kAny, 24, "TArrayD"},
    {Kind::kObjectAny, "fIndex", "Index of sorted values", kAny, 24, "TArrayI"},
    {Kind::kObjectPointer, "fTreeIndex", "Pointer to the tree Index (if any)", kObjectP, 8,
     "TVirtualIndex*"},
    {Kind::kObjectPointer, "fFriends", "pointer to list of friend elements", kObjectP, 8, "TList*"},
    {Kind::kObjectPointer, "fUserInfo", "pointer to a list of user objects associated to this Tree",
     kObjectP, 8, "TList*"},
    {Kind::kObjectPointer, "fBranchRef", "Branch supporting the TRefTable (if any)", kObjectP, 8,
     "TBranchRef*"},
};

// Bases before the classes that use them (ROOT's own order is irrelevant to readers).
constexpr ClassLayout kClasses[] = {
    {"TObject", 0x901bc02dU, 1, kTObjectElements},
    {"TString", 0x00017419U, 2, {}},
    {"TNamed", 0xdfb74a3cU, 1, kTNamedElements},
    {"TAttLine", 0x94074549U, 2, kTAttLineElements},
    {"TAttFill", 0xffd92a92U, 2, kTAttFillElements},
    {"TAttMarker", 0x291d8becU, 2, kTAttMarkerElements},
    {"TCollection", 0x57e3cb9cU, 3, kTCollectionElements},
    {"TSeqCollection", 0xfc6c3bc6U, 0, kTSeqCollectionElements},
    {"TObjArray", 0xa99e6552U, 3, kTObjArrayElements},
    {"TList", 0x69c5c3bbU, 5, kTListElements},
    {"ROOT::TIOFeatures", 0x1aa12f10U, 1, kTIOFeaturesElements},
    {"TLeaf", 0x6d1e8152U, 2, kTLeafElements},
    {"TLeafF", 0x3add9d72U, 1, kTLeafFElements},
    {"TLeafD", 0x118e8776U, 1, kTLeafDElements},
    {"TBranch", 0x10978aacU, 13, kTBranchElements},
    {"TRefTable", 0x8c895b85U, 3, kTRefTableElements},
    {"TBranchRef", 0x2360b3fdU, 1, kTBranchRefElements},
    {"TTree", 0x7264e07fU, 20, kTTreeElements},
};

std::string_view element_class(Kind kind) {
    switch (kind) {
    case Kind::kBase:
        return "TStreamerBase";
    case Kind::kBasic:
        return "TStreamerBasicType";
    case Kind::kString:
        return "TStreamerString";
    case Kind::kObject:
        return "TStreamerObject";
    case Kind::kObjectAny:
        return "TStreamerObjectAny";
    case Kind::kObjectPointer:
        return "TStreamerObjectPointer";
    case Kind::kBasicPointer:
        return "TStreamerBasicPointer";
    case Kind::kStl:
        return "TStreamerSTL";
    }
    return "TStreamerElement";
}

void write_element(OutBuffer& out, const Element& e) {
    const bool versioned3 = e.kind == Kind::kBase || e.kind == Kind::kStl;
    const std::size_t any = out.begin_any(element_class(e.kind));
    const std::size_t own = out.begin(versioned3 ? 3 : 2);
    const std::size_t base = out.begin(4);  // TStreamerElement
    out.tnamed(e.name, e.title);
    out.i32(e.type);
    out.i32(e.size);
    out.i32(0);  // fArrayLength
    out.i32(0);  // fArrayDim
    // fMaxIndex[5]; ROOT keeps a base class's checksum in the second slot.
    out.i32(0);
    out.u32(e.kind == Kind::kBase ? class_checksum(e.name) : 0U);
    out.zeros(12);
    out.str(e.type_name);
    out.end(base);
    switch (e.kind) {
    case Kind::kBase:
        out.i32(e.extra);
        break;
    case Kind::kBasicPointer:
        out.i32(e.extra);
        out.str(e.count_name);
        out.str(e.count_class);
        break;
    case Kind::kStl:
        out.i32(e.extra);  // fSTLtype: std::vector
        out.i32(kObject);  // fCtype: of objects (std::string)
        break;
    default:
        break;
    }
    out.end(own);
    out.end(any);
}

}  // namespace

std::uint32_t class_checksum(std::string_view class_name) noexcept {
    for (const ClassLayout& c : kClasses) {
        if (c.name == class_name) {
            return c.checksum;
        }
    }
    return 0;
}

std::vector<std::uint8_t> streamer_info_list() {
    OutBuffer out;
    const std::size_t list = out.begin(5);  // TList
    out.tobject();
    out.str("");
    out.i32(static_cast<std::int32_t>(std::size(kClasses)));
    for (const ClassLayout& c : kClasses) {
        const std::size_t any = out.begin_any("TStreamerInfo");
        const std::size_t info = out.begin(9);
        out.tnamed(c.name, "", kObjectBits | 0x00010000U);
        out.u32(c.checksum);
        out.i32(c.version);
        const std::size_t array_any = out.begin_any("TObjArray");
        const std::size_t array = out.begin(3);
        out.tobject();
        out.str("");
        out.i32(static_cast<std::int32_t>(c.elements.size()));
        out.i32(0);  // fLowerBound
        for (const Element& e : c.elements) {
            write_element(out, e);
        }
        out.end(array);
        out.end(array_any);
        out.end(info);
        out.end(any);
        out.u8(0);  // the TList entry's option string
    }
    out.end(list);
    return std::move(out.storage());
}

}  // namespace laddu::data::root
