// laddu/base/target_clones.hpp: LADDU_TARGET_CLONES, one copy of a function per x86-64 level.
//
// GCC's function multiversioning: a function marked LADDU_TARGET_CLONES is compiled for
// x86-64-v4 (AVX-512), x86-64-v3 (AVX2, FMA) and the baseline, and an ifunc resolver picks the
// copy for the CPU when the program loads, so a default (baseline) build still runs 8-lane
// vectors and fma instructions on AVX-512 hosts. The copies give the same bits only where the
// function's file is compiled with -ffp-contract=off (so the only fused operations are explicit
// std::fma calls, correctly rounded in every copy) and its other operations are the same in
// every lane width (no reassociation). Empty where multiversioning is not available (other
// compilers and platforms), which leaves one copy for the build's target.
#pragma once

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
#define LADDU_TARGET_CLONES                                                                        \
    __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define LADDU_TARGET_CLONES
#endif
