// fmt's compiled part, built into inferlint rather than loaded from libfmt.so.
//
// Debian ships fmt as a shared library only. Loading it (and the shared libstdc++ it
// needs) was about a fifth of the time `inferlint --version` takes; fmt's header-only
// mode avoids that but compiles fmt's implementation into every source file, which cost
// half a minute per build. Here it is compiled once: format-inl.h defines fmt's
// out-of-line functions, and the templates fmt's headers declare `extern` are
// instantiated below (the char and wchar_t cases, as the library itself provides them).
#include <fmt/format-inl.h>

FMT_BEGIN_NAMESPACE
namespace detail {
template locale_ref::locale_ref(const std::locale& loc);
template auto locale_ref::get<std::locale>() const -> std::locale;
template auto thousands_sep_impl<char>(locale_ref) -> thousands_sep_result<char>;
template auto thousands_sep_impl<wchar_t>(locale_ref) -> thousands_sep_result<wchar_t>;
template auto decimal_point_impl(locale_ref) -> char;
template auto decimal_point_impl(locale_ref) -> wchar_t;
}  // namespace detail
FMT_END_NAMESPACE
