// alcove command-line program (placeholder).
#include <stdio.h>

#include "alc/alc.h"

int main(void) {
    printf("alcove %s\n", alcu_versionString());
    return 0;
}
