// A value read through without keeping it (series_json.hpp), one token at a time in the
// order simdjson On-Demand hands them out, as a range-for over each array and object would.
#include "series_json.hpp"

#include <string_view>
#include <vector>

namespace inferlint::series_json {

namespace od = simdjson::ondemand;

namespace {

// One array or object the walk is inside: where its next item or field is.
struct JsonOpen {
    bool is_object;
    bool started = false;  // its first item or field was read (or it had none)
    od::object_iterator field, field_end;
    od::array_iterator item, item_end;
};

}  // namespace

// The arrays and objects the walk is inside are kept in a list, not on the call stack:
// no line, however deep, takes the calls deeper (an ASan build's -O0 frames ran out of
// the 8 MB stack at 1,100 levels when this recursed, before the limit was reached).
bool validate(od::value v, int depth) {
    std::vector<JsonOpen> open;  // allocated only for an array or object
    for (;;) {
        // v is at depth + open.size(): read it.
        if (depth + static_cast<int>(open.size()) > kMaxDepth) return false;
        od::json_type type;
        if (v.type().get(type)) return false;
        switch (type) {
            case od::json_type::object: {
                od::object obj;
                if (v.get_object().get(obj)) return false;
                JsonOpen& o = open.emplace_back(JsonOpen{.is_object = true});
                if (obj.begin().get(o.field) || obj.end().get(o.field_end)) return false;
                break;
            }
            case od::json_type::array: {
                od::array arr;
                if (v.get_array().get(arr)) return false;
                JsonOpen& o = open.emplace_back(JsonOpen{.is_object = false});
                if (arr.begin().get(o.item) || arr.end().get(o.item_end)) return false;
                break;
            }
            case od::json_type::string: {
                std::string_view s;
                if (v.get_string().get(s)) return false;
                break;
            }
            case od::json_type::number: {
                double d;
                if (v.get_double().get(d)) return false;
                break;
            }
            case od::json_type::boolean: {
                bool b;
                if (v.get_bool().get(b)) return false;
                break;
            }
            case od::json_type::null: {
                bool is_null = false;
                if (v.is_null().get(is_null) || !is_null) return false;
                break;
            }
            default:
                return false;
        }
        // The next value: the innermost open array's or object's next one, those that
        // have none left closed on the way (as a range-for over each would).
        for (;;) {
            if (open.empty()) return true;
            JsonOpen& o = open.back();
            if (o.is_object) {
                if (o.started) ++o.field;
                o.started = true;
                if (!(o.field != o.field_end)) {
                    open.pop_back();
                    continue;
                }
                od::field field;
                std::string_view key;
                if ((*o.field).get(field) || field.unescaped_key().get(key)) return false;
                v = field.value();
            } else {
                if (o.started) ++o.item;
                o.started = true;
                if (!(o.item != o.item_end)) {
                    open.pop_back();
                    continue;
                }
                if ((*o.item).get(v)) return false;
            }
            break;
        }
    }
}

}  // namespace inferlint::series_json
