#include "convert.hpp"

#include "inferlint/core/engines.hpp"

#include <cmath>
#include <map>
#include <utility>

namespace inferlint::python {

py::object to_python(const Json& value) {
    switch (value.type()) {
        case Json::value_t::null:
            return py::none();
        case Json::value_t::boolean:
            return py::bool_(value.get<bool>());
        case Json::value_t::number_integer:
            return py::int_(value.get<long long>());
        case Json::value_t::number_unsigned:
            return py::int_(value.get<unsigned long long>());
        case Json::value_t::number_float:
            return py::float_(value.get<double>());
        case Json::value_t::string:
            return py::str(value.get_ref<const std::string&>());
        case Json::value_t::array: {
            py::list out;
            for (const auto& item : value) out.append(to_python(item));
            return out;
        }
        case Json::value_t::object: {
            py::dict out;
            for (const auto& [key, item] : value.items()) out[py::str(key)] = to_python(item);
            return out;
        }
        default:  // binary and discarded values: no evidence holds them
            return py::none();
    }
}

Json from_python(py::handle value) {
    if (value.is_none()) return nullptr;
    if (py::isinstance<py::bool_>(value)) return value.cast<bool>();
    if (py::isinstance<py::int_>(value)) return value.cast<long long>();
    if (py::isinstance<py::float_>(value)) return value.cast<double>();
    if (py::isinstance<py::str>(value)) return value.cast<std::string>();
    if (py::isinstance<py::dict>(value)) {
        Json out = Json::object();
        for (auto [k, v] : value.cast<py::dict>()) {
            if (!py::isinstance<py::str>(k)) throw py::type_error("a dict key is not a str");
            out[k.cast<std::string>()] = from_python(v);
        }
        return out;
    }
    if (py::isinstance<py::list>(value) || py::isinstance<py::tuple>(value)) {
        Json out = Json::array();
        for (auto item : value) out.push_back(from_python(item));
        return out;
    }
    throw py::type_error("not a JSON value: " + py::repr(value).cast<std::string>());
}

const Engine* engine_named(const std::optional<std::string>& key) {
    if (!key) return nullptr;
    const Engine* e = parse_key(*key);
    if (!e) throw py::value_error("unknown engine '" + *key + "' (known: vllm, sglang, trtllm)");
    return e;
}

py::handle package_attr(const char* module, const char* name) {
    // One entry per (module, name) for the interpreter's life; released never, since the
    // interpreter may already be gone when static destructors run.
    static auto* cache = new std::map<std::pair<std::string, std::string>, py::object>();
    auto key = std::make_pair(std::string(module), std::string(name));
    auto it = cache->find(key);
    if (it == cache->end()) it = cache->emplace(key, py::module_::import(module).attr(name)).first;
    return it->second;
}

py::object check_result(const CheckResult& result) {
    py::handle status = package_attr("inferlint.result", "Status");
    py::handle cls = package_attr("inferlint.result", "CheckResult");
    return cls(std::string(code(result.tripwire)), status(std::string(status_value(result.status))), result.message,
               to_python(result.evidence));
}

py::list check_results(const std::vector<CheckResult>& results) {
    py::list out;
    for (const auto& r : results) out.append(check_result(r));
    return out;
}

std::filesystem::path path_of(py::handle value) {
    py::object text = py::module_::import("os").attr("fspath")(value);
    if (!py::isinstance<py::str>(text)) throw py::type_error("give the path as str or os.PathLike, not bytes");
    return std::filesystem::path(text.cast<std::string>());
}

}  // namespace inferlint::python
