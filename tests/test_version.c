#include "test_macros.h"

#include "alc/alc.h"

ALC_TEST(version) {
    ENSURE(alcu_version() == ALC_VERSION_HEADER);
    ENSURE(alcu_statusString(ALC_OK)[0] == 'A');
    return ALC_TEST_PASS;
}
