/*
 * fuzz.h - shared bits of the libFuzzer targets (test/fuzz/README).
 * Every target copies the input into a NUL-terminated buffer (the parsers
 * take C strings) and calls the parser exactly as its program does.
 */
#ifndef SB_FUZZ_H
#define SB_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* @data as a C string (an embedded NUL ends it early, as in a file read by
 * the programs); the caller frees it.  Aborts on out of memory. */
static inline char *fuzz_cstr(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (!s)
		abort();
	memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

#endif /* SB_FUZZ_H */
