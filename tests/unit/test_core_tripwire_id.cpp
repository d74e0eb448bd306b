#include "support.hpp"

#include "inferlint/core/tripwire_id.hpp"

using namespace inferlint;

TEST_CASE("tripwire ids: a code reads back as its id, and nothing else does", "[tripwire_id]") {
    for (TripwireId id : kTripwireIds) CHECK(tripwire_id(code(id)) == id);
    CHECK(tripwire_id("T8") == TripwireId::T8);
    CHECK_FALSE(tripwire_id("T0"));
    CHECK_FALSE(tripwire_id("8"));
    CHECK_FALSE(tripwire_id(" T8"));
    CHECK(TripwireId::T8 == std::string_view("T8"));  // for text from JSON or a user
    CHECK_FALSE(TripwireId::T8 == std::string_view("T80"));
}

TEST_CASE("tripwire selection: codes and ranges, any case, in code order, once each", "[tripwire_id]") {
    auto all = parse_tripwire_selection("T1-T15");
    REQUIRE(all);
    CHECK(all->size() == 15);
    CHECK(all->front() == TripwireId::T1);
    CHECK(all->back() == TripwireId::T15);
    CHECK(parse_tripwire_selection("t8, T1,T8") == std::vector{TripwireId::T1, TripwireId::T8});
    CHECK(parse_tripwire_selection("T9-T10,T14") == std::vector{TripwireId::T9, TripwireId::T10, TripwireId::T14});
    CHECK(parse_tripwire_selection("T4") == std::vector{TripwireId::T4});
    auto every = parse_tripwire_selection(" ALL ");
    REQUIRE(every);
    CHECK(every->size() == kTripwireIds.size());
    for (const char* bad : {"", " ", "T8-T1", "T1,,T2", "T99", "preemption", "T1-", "-T3"}) {
        INFO(bad);
        CHECK_FALSE(parse_tripwire_selection(bad));
    }
}
