// Sample lines through simdjson On-Demand. What a line reads as is what the reader before
// it gave (a plain scanner with nlohmann behind it), so that verdicts do not move:
//  - a line that is not one valid JSON object is skipped (nesting deeper than simdjson's
//    1024 levels included: series_json.cpp);
//  - a valid object with "schema" is a header, unless it is a plain sample line (numbers
//    and nulls only, with t_wall), which reads as a sample;
//  - NaN, Infinity and -Infinity (Python's json.dumps writes them) read as numbers on a
//    plain line only: for t_wall and the gauges, and -Infinity for a key it does not know;
//    never for t_mono_ns;
//  - the last of repeated keys wins; a field of the wrong type is an error, named in the
//    order t_wall, t_mono_ns, then the gauges.
#include "series_line.hpp"

#include "series_json.hpp"

#include <simdjson.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <vector>

namespace inferlint::series_line {

namespace od = simdjson::ondemand;

namespace {

enum class SlField {
    t_wall,
    t_mono_ns,
    running,
    waiting,
    kv_usage,
    preemptions,
    generation_tokens,
    prompt_tokens,
    paused,
    other
};
constexpr std::size_t kSlKnown = 9;
constexpr std::array<const char*, kSlKnown> kSlNames = {"t_wall",   "t_mono_ns",   "running",           "waiting",
                                                        "kv_usage", "preemptions", "generation_tokens", "prompt_tokens",
                                                        "paused"};

SlField sl_field_of(std::string_view key) {
    switch (key.size()) {
        case 6:
            return key == "t_wall" ? SlField::t_wall : key == "paused" ? SlField::paused : SlField::other;
        case 7:
            return key == "running" ? SlField::running : key == "waiting" ? SlField::waiting : SlField::other;
        case 8:
            return key == "kv_usage" ? SlField::kv_usage : SlField::other;
        case 9:
            return key == "t_mono_ns" ? SlField::t_mono_ns : SlField::other;
        case 11:
            return key == "preemptions" ? SlField::preemptions : SlField::other;
        case 13:
            return key == "prompt_tokens" ? SlField::prompt_tokens : SlField::other;
        case 17:
            return key == "generation_tokens" ? SlField::generation_tokens : SlField::other;
        default:
            return SlField::other;
    }
}

enum class Got : unsigned char { absent, null, number, wrong };

// What one line's fields held, the last of repeated keys winning.
struct SlFields {
    std::array<Got, kSlKnown> got{};
    std::array<double, kSlKnown> value;  // read where got is number, so left unset
    long long ns = 0;
    bool valid = true;        // still one well-formed JSON object
    bool plain = true;        // numbers and nulls only, plain keys, t_wall never null
    bool python_nan = false;  // a NaN/Infinity token was read
    bool schema = false;
    int wrong = 0;  // fields that now hold a value of the wrong type
};

void sl_set(SlFields& f, std::size_t i, Got got) {
    f.wrong += (got == Got::wrong) - (f.got[i] == Got::wrong);
    f.got[i] = got;
}

std::string_view sl_trim_token(std::string_view t) {
    while (!t.empty() && (t.back() == ' ' || t.back() == '\t' || t.back() == '\r' || t.back() == '\n'))
        t.remove_suffix(1);
    return t;
}

// Python's json.dumps spelling of a non-finite float; nullopt for any other token.
std::optional<double> sl_python_float(od::value& v) {
    std::string_view raw = sl_trim_token(v.raw_json_token());
    if (raw == "NaN") return std::nan("");
    if (raw == "Infinity") return HUGE_VAL;
    if (raw == "-Infinity") return -HUGE_VAL;
    return std::nullopt;
}

// A whole number of nanoseconds, as Python's int() takes a float.
std::optional<long long> sl_whole(double v) {
    if (!std::isfinite(v) || std::abs(v) >= 9.2e18) return std::nullopt;
    return static_cast<long long>(std::trunc(v));
}

enum class NsRead { ok, not_whole, invalid };

// t_mono_ns: an integer as it is (one past INT64_MAX wraps, as nlohmann's get<long long>
// did), a float truncated. A getter that fails does not consume the value, so the next
// one may try.
NsRead sl_read_ns(od::value& v, long long& out) {
    od::number_type type;
    if (v.get_number_type().get(type)) return NsRead::invalid;
    if (type == od::number_type::signed_integer) {
        int64_t i;
        if (!v.get_int64().get(i)) return out = i, NsRead::ok;
    } else if (type == od::number_type::unsigned_integer) {
        uint64_t u;
        if (!v.get_uint64().get(u)) return out = static_cast<long long>(u), NsRead::ok;
    }
    double d;
    if (v.get_double().get(d)) return NsRead::invalid;
    auto w = sl_whole(d);
    if (!w) return NsRead::not_whole;
    out = *w;
    return NsRead::ok;
}

void sl_known_value(SlFields& f, SlField which, od::value& v) {
    auto i = static_cast<std::size_t>(which);
    // The common case first: a plain number (for t_mono_ns, one that fits int64). A getter
    // that fails leaves the value as it was, for the full reading below.
    if (which == SlField::t_mono_ns) {
        int64_t ns;
        if (!v.get_int64().get(ns)) {
            f.ns = ns;
            sl_set(f, i, Got::number);
            return;
        }
    } else {
        double d;
        if (!v.get_double().get(d)) {
            sl_set(f, i, Got::number);
            f.value[i] = d;
            return;
        }
    }
    od::json_type type;
    if (v.type().get(type)) {  // not JSON: a NaN/Infinity token, or garbage
        auto pf = which == SlField::t_mono_ns ? std::nullopt : sl_python_float(v);
        if (!pf) return void(f.valid = false);
        f.python_nan = true;
        sl_set(f, i, Got::number);
        f.value[i] = *pf;
        return;
    }
    if (type == od::json_type::null) {
        bool is_null = false;
        if (v.is_null().get(is_null) || !is_null) return void(f.valid = false);
        sl_set(f, i, Got::null);
        if (which == SlField::t_wall) f.plain = false;
        return;
    }
    if (type != od::json_type::number) {
        sl_set(f, i, Got::wrong);
        f.plain = false;
        if (!series_json::validate(v, 1)) f.valid = false;
        return;
    }
    if (which == SlField::t_mono_ns) {
        NsRead r = sl_read_ns(v, f.ns);
        if (r == NsRead::invalid) return void(f.valid = false);
        sl_set(f, i, r == NsRead::ok ? Got::number : Got::wrong);
        return;
    }
    double d;
    if (v.get_double().get(d)) {
        auto pf = sl_python_float(v);  // -Infinity
        if (!pf) return void(f.valid = false);
        f.python_nan = true;
        d = *pf;
    }
    sl_set(f, i, Got::number);
    f.value[i] = d;
}

void sl_other_value(SlFields& f, od::value& v) {
    od::json_type type;
    if (v.type().get(type)) return void(f.valid = false);  // NaN, Infinity: skipped as before
    if (type == od::json_type::number) {
        double d;
        if (!v.get_double().get(d)) return;
        auto pf = sl_python_float(v);
        if (!pf || !std::isinf(*pf)) return void(f.valid = false);
        f.python_nan = true;
        return;
    }
    if (type != od::json_type::null) f.plain = false;
    if (!series_json::validate(v, 1)) f.valid = false;
}

// One of the sample's own keys, written plainly: the name, then the closing quote. Most
// lines hold nothing else, so this is tried before scanning a key for escapes. A short key
// is followed by at least the rest of its object and the padding, so the bytes compared
// past it can be read.
SlField sl_known_key(const char* raw_key) {
    auto is = [raw_key](std::string_view name) {
        return std::memcmp(raw_key, name.data(), name.size()) == 0 && raw_key[name.size()] == '"';
    };
    switch (raw_key[0]) {
        case 't':
            if (is("t_wall")) return SlField::t_wall;
            if (is("t_mono_ns")) return SlField::t_mono_ns;
            break;
        case 'r':
            if (is("running")) return SlField::running;
            break;
        case 'w':
            if (is("waiting")) return SlField::waiting;
            break;
        case 'k':
            if (is("kv_usage")) return SlField::kv_usage;
            break;
        case 'p':
            if (is("preemptions")) return SlField::preemptions;
            if (is("prompt_tokens")) return SlField::prompt_tokens;
            if (is("paused")) return SlField::paused;
            break;
        case 'g':
            if (is("generation_tokens")) return SlField::generation_tokens;
            break;
        default:
            break;
    }
    return SlField::other;  // another key, or one of these spelled otherwise
}

// The key as written, when it holds no escape (no copy to unescape it).
std::optional<std::string_view> sl_plain_key(const char* raw_key) {
    const char* p = raw_key;
    while (*p != '"' && *p != '\\') {
        if (static_cast<unsigned char>(*p) < 0x20) return std::nullopt;  // not JSON: unescaped_key says so
        ++p;
    }
    if (*p == '\\') return std::nullopt;
    return std::string_view(raw_key, static_cast<std::size_t>(p - raw_key));
}

// The object's fields, read to its closing brace. Doc: a document, or one of a stream's.
template <typename Doc>
void sl_object(Doc& doc, SlFields& f) {
    od::object obj;
    if (doc.get_object().get(obj)) return void(f.valid = false);
    for (auto field_result : obj) {
        if (field_result.error()) return void(f.valid = false);
        // The field where it lies: get() would copy it, and the copy reads back its halves
        // as one 16-byte load just after writing them apart (a stall on every field).
        od::field& field = field_result.value_unsafe();
        const char* raw_key = field.key().raw();
        SlField which = sl_known_key(raw_key);
        std::string_view key;
        if (which == SlField::other) {
            if (auto plain = sl_plain_key(raw_key)) {
                key = *plain;
            } else {
                f.plain = false;
                if (field.unescaped_key().get(key)) return void(f.valid = false);
            }
            which = sl_field_of(key);
        }
        od::value& v = field.value();
        if (which == SlField::other) {
            if (key == "schema") f.schema = true;
            sl_other_value(f, v);
        } else {
            sl_known_value(f, which, v);
        }
        if (!f.valid) return;
    }
}

// One line's document: anything after the object is trailing content, so the document
// must be at its end.
void sl_fields(od::document& doc, SlFields& f) {
    sl_object(doc, f);
    if (!f.valid) return;
    const char* trailing = nullptr;
    if (!doc.current_location().get(trailing)) f.valid = false;
}

// A field of the wrong type, or no t_wall: what sl_error names.
bool sl_wrong(const SlFields& f) {
    constexpr auto wall = static_cast<std::size_t>(SlField::t_wall);
    return f.got[wall] != Got::number || f.wrong > 0;
}

std::string sl_error(const SlFields& f) {
    constexpr auto wall = static_cast<std::size_t>(SlField::t_wall);
    if (f.got[wall] == Got::absent || f.got[wall] == Got::null) return "a sample without \"t_wall\"";
    if (f.got[wall] == Got::wrong) return "\"t_wall\" is not a number";
    if (f.got[static_cast<std::size_t>(SlField::t_mono_ns)] == Got::wrong) return "\"t_mono_ns\" is not a whole number";
    for (std::size_t i = 2; i < kSlKnown; ++i)
        if (f.got[i] == Got::wrong) return std::string("\"") + kSlNames[i] + "\" is not a number";
    return {};
}

// Every field of s set (it is reused from line to line: no zeroing of a new one first).
void sl_sample(const SlFields& f, SeriesSample& s) {
    s.t_wall = f.value[0];
    s.t_mono_ns = f.got[1] == Got::number ? std::optional<long long>(f.ns) : std::nullopt;
    std::optional<double>* gauges[] = {&s.running,           &s.waiting,       &s.kv_usage, &s.preemptions,
                                       &s.generation_tokens, &s.prompt_tokens, &s.paused};
    for (std::size_t i = 2; i < kSlKnown; ++i)
        *gauges[i - 2] = f.got[i] == Got::number ? std::optional<double>(f.value[i]) : std::nullopt;
}

}  // namespace

static_assert(kPadding == simdjson::SIMDJSON_PADDING);

struct LineReader::State {
    od::parser parser;
    std::vector<char> padded;
    // A block's lines read as one document stream (begin_block): stage 1 runs once over
    // the block instead of once a line. Its own parser: reading a line alone resets one.
    od::parser stream_parser;
    od::document_stream docs;
    od::document_stream::iterator doc;
    od::document_stream::iterator docs_end;
    const char* block = nullptr;
    std::size_t batch = 0;
    bool streaming = false;
    LineRead line;  // the last line's read, reused

    State() {
#ifdef SIMDJSON_THREADS_ENABLED
        stream_parser.threaded = false;  // one batch a block: nothing to hand a thread
#endif
    }
};

LineReader::LineReader() : state_(std::make_unique<State>()) {}
LineReader::~LineReader() = default;

namespace {

// nlohmann took a NUL byte for the end of its input, and so does this reader: what
// follows one is not read (a NUL inside a string or before the object closes is a line
// cut short, skipped). A byte-order mark (an editor's) is not JSON; nlohmann skipped it,
// so does this (true: there was one).
bool sl_cut(std::string_view& text) {
    if (std::memchr(text.data(), '\0', text.size()) != nullptr) {
        text = text.substr(0, text.find('\0'));
        while (!text.empty() && std::string_view(" \t\n\v\f\r").find(text.back()) != std::string_view::npos)
            text.remove_suffix(1);
    }
    if (text.substr(0, 3) == "\xEF\xBB\xBF") {
        text.remove_prefix(3);
        return true;
    }
    return false;
}

// What a line whose fields were read (f) reads as, into out (skip, as it comes, stays).
void sl_finish(const SlFields& f, std::string_view text, SchemaKey schema, LineRead& out) {
    if (!f.valid) return;
    // The old scanner's plain lines had no whitespace but spaces and tabs between tokens.
    bool plain = f.plain;
    if ((f.python_nan || f.schema) && text.find_first_of("\r\n") != std::string_view::npos) plain = false;
    bool wrong = sl_wrong(f);
    bool plain_sample = plain && !wrong;
    if (f.python_nan && !plain_sample) return;
    if (f.schema && schema == SchemaKey::header && !plain_sample) {
        out.kind = LineKind::header;
    } else if (wrong) {
        out.kind = LineKind::bad;
        out.error = sl_error(f);
    } else {
        out.kind = LineKind::sample;
        sl_sample(f, out.sample);
    }
}

}  // namespace

LineRead LineReader::read(std::string_view text, SchemaKey schema) {
    bool bom = sl_cut(text);
    auto& buf = state_->padded;
    if (buf.size() < text.size() + kPadding) buf.resize(text.size() + kPadding);
    std::memcpy(buf.data(), text.data(), text.size());
    std::memset(buf.data() + text.size(), 0, kPadding);
    LineRead& out = fresh_line();
    parse(std::string_view(buf.data(), text.size()), buf.size(), bom, schema, out);
    LineRead copy = out;
    if (copy.kind != LineKind::sample) copy.sample = {};
    return copy;
}

LineRead& LineReader::fresh_line() {
    LineRead& out = state_->line;
    out.kind = LineKind::skip;
    if (!out.error.empty()) out.error.clear();
    return out;
}

void LineReader::begin_block(std::string_view block) {
    State& st = *state_;
    st.streaming = false;
    // A NUL ends a line for this reader, not for simdjson: such a block is read a line at
    // a time.
    if (std::memchr(block.data(), '\0', block.size()) != nullptr) return;
    // The stream gives its first document the index 0, wherever it starts.
    while (!block.empty() && std::string_view(" \t\r\n").find(block.front()) != std::string_view::npos)
        block.remove_prefix(1);
    if (block.empty()) return;
    // One batch for the whole block, of a size that stays put (a new size reallocates).
    st.batch = std::max(st.batch, std::bit_ceil(block.size()));
    if (st.stream_parser.iterate_many(block.data(), block.size(), st.batch).get(st.docs)) return;
    st.doc = st.docs.begin();
    st.docs_end = st.docs.end();
    st.block = block.data();
    st.streaming = true;
}

void LineReader::end_block() { state_->streaming = false; }

const LineRead& LineReader::read_in_place(std::string_view text, const char* line_end, SchemaKey schema) {
    LineRead& out = fresh_line();
    if (state_->streaming) {
        if (from_stream(text, line_end != nullptr ? line_end : text.data() + text.size(), schema, out)) return out;
        // Read alone, this line and the rest of the block (the stream is no longer in step).
        state_->streaming = false;
    }
    bool bom = sl_cut(text);
    // Cut short or not, the kPadding bytes after the line's end are still there.
    parse(text, text.size() + kPadding, bom, schema, out);
    return out;
}

// The stream's next document, when it is this line's and reads as the line alone would:
// an object that starts where the line's text does and closes on it, with nothing after
// it on the line. Every line before it in the block was such an object, so simdjson split
// this line's bytes into the same tokens as it would the line alone. Anything else (an
// error, a document that runs across lines, two on one line, a byte-order mark) is left
// to parse(), with the rest of the block.
bool LineReader::from_stream(std::string_view text, const char* line_end, SchemaKey schema, LineRead& out) {
    State& st = *state_;
    if (!(st.doc != st.docs_end) || text.empty() || text.front() != '{') return false;
    if (st.doc.current_index() != static_cast<std::size_t>(text.data() - st.block)) return false;
    od::document_reference doc;
    if ((*st.doc).get(doc)) return false;
    SlFields f;
    sl_object(doc, f);
    if (!f.valid) return false;
    // The next token must be the first past the line's end: then the object closed on this
    // line (a closing brace on a later line would lie between), and nothing but white
    // space followed it (simdjson marks the start of every other token). With no next
    // token the stream cannot tell: in stream mode simdjson drops what looks like a cut
    // document at the end of a block, so the block's last line is read alone.
    const char* next = nullptr;
    if (doc.current_location().get(next) || next < line_end) return false;
    const char* after = line_end;
    while (after < next && (*after == '\n' || *after == ' ' || *after == '\t' || *after == '\r')) ++after;
    if (after != next) return false;
    ++st.doc;
    sl_finish(f, text, schema, out);
    return true;
}

void LineReader::parse(std::string_view text, std::size_t allocated, bool bom, SchemaKey schema, LineRead& out) {
    SlFields f;
    if (bom) f.plain = false;
    od::document doc;
    if (state_->parser.iterate(text.data(), text.size(), allocated).get(doc)) return;
    sl_fields(doc, f);
    sl_finish(f, text, schema, out);
}

}  // namespace inferlint::series_line
