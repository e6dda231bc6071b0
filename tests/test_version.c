#include "test_macros.h"

#include "alc/alc.h"

#include <stdio.h>
#include <string.h>

ALC_TEST(version) {
    ENSURE(alcu_version() == ALC_VERSION_HEADER);
    // the string says the same version as the number
    char expect[32];
    snprintf(expect, sizeof expect, "%d.%d.%d", alcu_version() / 10000, alcu_version() / 100 % 100,
             alcu_version() % 100);
    ENSURE_MSG(!strcmp(alcu_versionString(), expect), "%s != %s", alcu_versionString(), expect);
    ENSURE(alcu_statusString(ALC_OK)[0] == 'A');
    return ALC_TEST_PASS;
}
