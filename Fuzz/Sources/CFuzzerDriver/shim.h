// libFuzzer's driver, linked in by -sanitize=fuzzer. SwiftPM names an executable's entry point MODULE_main and
// links `main` to it, so libFuzzer's own main is never used: each fuzzer's entry point calls the driver.
#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));
