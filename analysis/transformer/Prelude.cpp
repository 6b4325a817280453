// The partition-ready prelude. Work-groups are never split, so a slice starting at
// orig_offset[d] + groupBegin*local[d] recovers its original group ids from the difference of
// the two offsets; sizes come straight from the hidden arguments. On its split dimension the
// slice's start is an id base (hidden) plus its real global offset. A launch
// that runs whole says so in the size's last lane (gs.w = 1): the built-ins' own values are
// then the launch's, and the hidden values need no update when its range changes.
#include "analysis/transformer/Prelude.h"

namespace clsplit::analysis::transformer {

std::vector<std::string_view> rewrittenBuiltins(unsigned clVersion) {
  std::vector<std::string_view> names = {"get_global_id", "get_global_size", "get_global_offset", "get_num_groups",
                                         "get_group_id"};
  if (clVersion >= 200) names.push_back("get_global_linear_id");
  return names;
}

std::string prelude(unsigned clVersion) {
  // `static` keeps these out of the program's external names (clLinkProgram); OpenCL C
  // before 1.2 has no `static` functions, and the reserved names cannot clash there.
  const std::string fn = clVersion >= 120 ? "static size_t " : "size_t ";
  const std::string vecFn = clVersion >= 120 ? "static ulong4 " : "ulong4 ";
  // The uniform work-group size: 2.0 allows a smaller last group, whose get_local_size differs.
  const std::string local = clVersion >= 200 ? "get_enqueued_local_size" : "get_local_size";
  std::string p;
  p += "/* clsplit: partition-ready program. Every kernel taking __clsplit_goffset/__clsplit_gsize\n"
       "   may run as a slice of its NDRange; those arguments hold the original global offset\n"
       "   and size, from which the built-ins below recompute the values of the whole launch\n"
       "   (__clsplit_gsize.w = 1: the launch is whole, the built-ins' own values are right). */\n";
  p += fn + "__clsplit_pick(ulong4 v, uint d) { return (size_t)(d == 0 ? v.x : d == 1 ? v.y : v.z); }\n";
  // A slice's ids start at its real offset plus an id base (go.w = base * 4 + dimension): a
  // slice far into a large NDRange runs at a small real offset, since NVIDIA's OpenCL fails
  // launches whose global offset is 2^31 or more (ids beyond it are fine).
  p += fn + "__clsplit_id_base(uint d, ulong4 go) { return (go.w & 3) == d ? (size_t)(go.w >> 2) : 0; }\n";
  p += fn + "__clsplit_global_id(uint d, ulong4 go) { return get_global_id(d) + __clsplit_id_base(d, go); }\n";
  p += fn + "__clsplit_global_size(uint d, ulong4 go, ulong4 gs) { return d < get_work_dim() && !gs.w ? "
            "__clsplit_pick(gs, d) : get_global_size(d); }\n";
  p += fn + "__clsplit_global_offset(uint d, ulong4 go, ulong4 gs) { return d < get_work_dim() && !gs.w ? "
            "__clsplit_pick(go, d) : get_global_offset(d); }\n";
  p += fn +
       "__clsplit_num_groups(uint d, ulong4 go, ulong4 gs) { return d < get_work_dim() && !gs.w ? "
       "(__clsplit_pick(gs, d) + " +
       local + "(d) - 1) / " + local + "(d) : get_num_groups(d); }\n";
  p += fn +
       "__clsplit_group_id(uint d, ulong4 go, ulong4 gs) { return d < get_work_dim() && !gs.w ? "
       "get_group_id(d) + (get_global_offset(d) + __clsplit_id_base(d, go) - __clsplit_pick(go, d)) / " +
       local + "(d) : get_group_id(d); }\n";
  if (clVersion >= 200) {
    p += fn +
         "__clsplit_global_linear_id(ulong4 go, ulong4 gs) { return "
         "(__clsplit_global_id(2, go) - __clsplit_global_offset(2, go, gs)) * __clsplit_global_size(1, go, gs) * "
         "__clsplit_global_size(0, go, gs) + (__clsplit_global_id(1, go) - __clsplit_global_offset(1, go, gs)) * "
         "__clsplit_global_size(0, go, gs) + (__clsplit_global_id(0, go) - __clsplit_global_offset(0, go, gs)); }\n";
  }
  p += vecFn + "__clsplit_launch_offset(void) { return (ulong4)(get_global_offset(0), "
               "get_global_offset(1), get_global_offset(2), 0); }\n";
  p += vecFn + "__clsplit_launch_size(void) { return (ulong4)(get_global_size(0), "
               "get_global_size(1), get_global_size(2), 0); }\n";
  // Only where launches may be split (the runtime defines __CLSPLIT_SPLITS for contexts of
  // several devices): on one device the built-in stays as the vendor compiles it.
  p += "#ifdef __CLSPLIT_SPLITS\n#define get_global_id(d) __clsplit_global_id((d), __clsplit_goffset)\n#endif\n";
  p += "#define get_global_size(d) __clsplit_global_size((d), __clsplit_goffset, __clsplit_gsize)\n";
  p += "#define get_global_offset(d) __clsplit_global_offset((d), __clsplit_goffset, __clsplit_gsize)\n";
  p += "#define get_num_groups(d) __clsplit_num_groups((d), __clsplit_goffset, __clsplit_gsize)\n";
  p += "#define get_group_id(d) __clsplit_group_id((d), __clsplit_goffset, __clsplit_gsize)\n";
  if (clVersion >= 200)
    p += "#define get_global_linear_id() __clsplit_global_linear_id(__clsplit_goffset, __clsplit_gsize)\n";
  // Window shifts (kernels' buffer pointers moved back by the hidden shift): compiled in only
  // where a device may hold a window of a buffer (the runtime defines __CLSPLIT_WINDOWS for
  // contexts of several devices); elsewhere the pointers are the program's own.
  p += "#ifdef __CLSPLIT_WINDOWS\n"
       "#define __CLSPLIT_REBASE(T, B, p, s) p = (T)((B)p - (s))\n"
       "#define __CLSPLIT_REBASED(T, B, p, s) ((T)((B)(p) - (s)))\n"
       "#else\n"
       "#define __CLSPLIT_REBASE(T, B, p, s)\n"
       "#define __CLSPLIT_REBASED(T, B, p, s) (p)\n"
       "#endif\n";
  p += "#line 1\n";
  return p;
}

} // namespace clsplit::analysis::transformer
