// Both walks keep the arrays and objects they are inside in a list, innermost last.
#include "json_walk.hpp"

#include <vector>

namespace inferlint::json_walk {

std::string text(const Json& value) {
    struct Open {
        const Json* container;
        Json::const_iterator next;
    };
    std::vector<Open> open;
    std::string out;
    const Json* v = &value;
    for (;;) {
        if (v->is_structured() && !v->empty()) {
            out += v->is_object() ? '{' : '[';
            open.push_back({v, v->begin()});
        } else {
            out += v->dump();  // a scalar, {} or []
        }
        for (;;) {
            if (open.empty()) return out;
            Open& o = open.back();
            if (o.next == o.container->end()) {
                out += o.container->is_object() ? '}' : ']';
                open.pop_back();
                continue;
            }
            if (o.next != o.container->begin()) out += ',';
            if (o.container->is_object()) out += Json(o.next.key()).dump() + ':';
            v = &*o.next;
            ++o.next;
            break;
        }
    }
}

Json copy(const Json& value) {
    // to: the copy being filled. Only the innermost is added to, so the others stay where
    // they are in their parents.
    struct Open {
        const Json* from;
        Json::const_iterator next;
        Json* to;
    };
    std::vector<Open> open;
    Json out;
    const Json* v = &value;
    Json* into = &out;
    for (;;) {
        if (v->is_object()) {
            *into = Json::object();
            if (!v->empty()) open.push_back({v, v->begin(), into});
        } else if (v->is_array()) {
            *into = Json::array();
            if (!v->empty()) open.push_back({v, v->begin(), into});
        } else {
            *into = *v;  // a scalar: no deeper
        }
        for (;;) {
            if (open.empty()) return out;
            Open& o = open.back();
            if (o.next == o.from->end()) {
                open.pop_back();
                continue;
            }
            if (o.from->is_object()) {
                // The keys are distinct already: appended, not looked up (ordered_json's
                // operator[] searches the object).
                auto& fields = o.to->get_ref<Json::object_t&>();
                fields.emplace_back(o.next.key(), nullptr);
                into = &fields.back().second;
            } else {
                o.to->push_back(nullptr);
                into = &o.to->back();
            }
            v = &*o.next;
            ++o.next;
            break;
        }
    }
}

}  // namespace inferlint::json_walk
