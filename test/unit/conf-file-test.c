/* conf-file-test.c - budget.conf's bytes as every reader reads them and the
 * controller plugins keep them (src/core/config_file.c): exactly the file or a clear
 * error, never a truncated text; one size limit (SB_CONFIG_MAX_BYTES); the
 * last valid copy holds the bytes it is given, not a second read. */
#include <check.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check_main.h"
#include "sb/config_file.h"
#include "sb/config.h"

static char dir[64];

static void setup(void)
{
	snprintf(dir, sizeof(dir), "/tmp/conf-file-test.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
}

static void teardown(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}

/* dir/name, in a static buffer per slot */
static const char *at(int slot, const char *name)
{
	static char p[4][128];

	snprintf(p[slot], sizeof(p[slot]), "%s/%s", dir, name);
	return p[slot];
}

static void put(const char *path, const char *text, size_t len)
{
	FILE *f = fopen(path, "w");

	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(text, 1, len, f), len);
	ck_assert_int_eq(fclose(f), 0);
}

/* read @path: the return code, the text (freed by the caller) or msg */
static int get(const char *path, char **text, size_t *len, char *msg,
	       size_t msglen)
{
	*text = NULL;
	*len = 0;
	msg[0] = '\0';
	return sb_config_file_read(path, text, len, msg, msglen);
}

START_TEST(test_read_exact)
{
	static const char conf[] = "MaxMinRuntime=4:00:00\nCalcPeriod=10\n";
	char *text, msg[512];
	size_t len;

	put(at(0, "budget.conf"), conf, sizeof(conf) - 1);
	ck_assert_int_eq(get(at(0, "budget.conf"), &text, &len, msg,
			     sizeof(msg)), 0);
	ck_assert_uint_eq(len, sizeof(conf) - 1);
	ck_assert_str_eq(text, conf);
	free(text);
	/* an empty file is a file (all defaults), not a missing one */
	put(at(0, "empty.conf"), "", 0);
	ck_assert_int_eq(get(at(0, "empty.conf"), &text, &len, msg,
			     sizeof(msg)), 0);
	ck_assert_uint_eq(len, 0);
	ck_assert_str_eq(text, "");
	free(text);
}
END_TEST

START_TEST(test_missing)
{
	char *text, msg[512];
	size_t len;

	ck_assert_int_eq(get(at(0, "nothing.conf"), &text, &len, msg,
			     sizeof(msg)), 1);
	ck_assert_ptr_null(text);
}
END_TEST

/* Not regular files: refused at once; a FIFO without a writer must not
 * block (the test would hang). */
START_TEST(test_not_regular)
{
	char *text, msg[512];
	size_t len;

	ck_assert_int_eq(mkdir(at(0, "d.conf"), 0700), 0);
	ck_assert_int_eq(get(at(0, "d.conf"), &text, &len, msg, sizeof(msg)),
			 -1);
	ck_assert_msg(strstr(msg, "d.conf is not a regular file"),
		      "directory: got '%s'", msg);
	ck_assert_int_eq(mkfifo(at(0, "fifo.conf"), 0600), 0);
	ck_assert_int_eq(get(at(0, "fifo.conf"), &text, &len, msg, sizeof(msg)),
			 -1);
	ck_assert_msg(strstr(msg, "fifo.conf is not a regular file"),
		      "FIFO: got '%s'", msg);
	ck_assert_ptr_null(text);
}
END_TEST

/* One limit: SB_CONFIG_MAX_BYTES is accepted, one byte more is not. */
START_TEST(test_size_limit)
{
	char *big = malloc(SB_CONFIG_MAX_BYTES + 1), *text, msg[512], want[128];
	size_t len;

	ck_assert_ptr_nonnull(big);
	memset(big, '#', SB_CONFIG_MAX_BYTES + 1);
	put(at(0, "max.conf"), big, SB_CONFIG_MAX_BYTES);
	ck_assert_int_eq(get(at(0, "max.conf"), &text, &len, msg, sizeof(msg)),
			 0);
	ck_assert_uint_eq(len, SB_CONFIG_MAX_BYTES);
	free(text);
	put(at(0, "over.conf"), big, SB_CONFIG_MAX_BYTES + 1);
	ck_assert_int_eq(get(at(0, "over.conf"), &text, &len, msg, sizeof(msg)),
			 -1);
	snprintf(want, sizeof(want), "over.conf is %d bytes: budget.conf "
		 "takes at most %d", SB_CONFIG_MAX_BYTES + 1,
		 SB_CONFIG_MAX_BYTES);
	ck_assert_msg(strstr(msg, want), "expected '%s' in '%s'", want, msg);
	ck_assert_ptr_null(text);
	free(big);
}
END_TEST

/* The file shrinks (or grows) between fstat and read: an error naming the
 * sizes, not the shorter (or cut) text. */
START_TEST(test_changed_while_read)
{
	static const char conf[] = "MaxMinRuntime=4:00:00\nCalcPeriod=10\n";
	const char *p = at(0, "budget.conf");
	char *text = NULL, msg[512];
	struct stat st;
	size_t len;
	int fd;

	put(p, conf, sizeof(conf) - 1);
	fd = open(p, O_RDONLY);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(fstat(fd, &st), 0);
	ck_assert_int_eq(truncate(p, 10), 0);	/* rewritten in place */
	ck_assert_int_eq(sb_config_file_read_fd(fd, &st, p, &text, &len, msg,
					   sizeof(msg)), -1);
	ck_assert_msg(strstr(msg, "changed while it was read (36 bytes when "
			     "opened, only 10)"), "shrank: got '%s'", msg);
	ck_assert_ptr_null(text);
	close(fd);

	put(p, conf, sizeof(conf) - 1);
	fd = open(p, O_RDONLY);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(fstat(fd, &st), 0);
	put(p, "MaxMinRuntime=4:00:00\nCalcPeriod=10\nBucketWidth=60\n", 51);
	ck_assert_int_eq(sb_config_file_read_fd(fd, &st, p, &text, &len, msg,
					   sizeof(msg)), -1);
	ck_assert_msg(strstr(msg, "changed while it was read (36 bytes when "
			     "opened, more than 36)"), "grew: got '%s'", msg);
	ck_assert_ptr_null(text);
	close(fd);
}
END_TEST

/* A NUL byte would end the parser's text early: refused. */
START_TEST(test_nul_byte)
{
	char *text, msg[512];
	size_t len;

	put(at(0, "nul.conf"), "Cal\0cPeriod=10\n", 15);
	ck_assert_int_eq(get(at(0, "nul.conf"), &text, &len, msg, sizeof(msg)),
			 -1);
	ck_assert_msg(strstr(msg, "nul.conf contains a NUL byte at offset 3"),
		      "got '%s'", msg);
	ck_assert_ptr_null(text);
}
END_TEST

/* The copy holds the bytes given (what was parsed), even when the file
 * was edited since; an identical copy is left alone. */
START_TEST(test_keep_exact)
{
	static const char parsed[] = "CalcPeriod=10\n";
	const char *src = at(0, "budget.conf"), *dst = at(1, "last-valid");
	char *text, msg[512];
	struct stat st0, st1;
	size_t len;

	put(src, parsed, sizeof(parsed) - 1);
	put(src, "CalcPeriod=banana\n", 18);	/* edited after the parse */
	umask(077);	/* the bits asked for, whatever the umask */
	ck_assert_int_eq(sb_config_file_keep(dst, parsed, sizeof(parsed) - 1,
					"test", 0644, msg, sizeof(msg)), 1);
	ck_assert_int_eq(get(dst, &text, &len, msg, sizeof(msg)), 0);
	ck_assert_str_eq(text, parsed);
	free(text);
	ck_assert_int_eq(stat(dst, &st0), 0);
	ck_assert_uint_eq(st0.st_mode & 07777, 0644);
	ck_assert_int_eq(sb_config_file_keep(dst, parsed, sizeof(parsed) - 1,
					"test", 0600, msg, sizeof(msg)), 0);
	ck_assert_int_eq(stat(dst, &st1), 0);
	ck_assert_uint_eq(st0.st_ino, st1.st_ino);	/* not rewritten, */
	ck_assert_uint_eq(st1.st_mode & 07777, 0600);	/* but chmod'ed */
	ck_assert_int_eq(sb_config_file_keep(dst, "CalcPeriod=20\n", 14, "test",
					0600, msg, sizeof(msg)), 1);
	ck_assert_int_eq(get(dst, &text, &len, msg, sizeof(msg)), 0);
	ck_assert_str_eq(text, "CalcPeriod=20\n");
	free(text);
}
END_TEST

/* A failed keep says where and leaves no temporary file behind. */
START_TEST(test_keep_fails_clean)
{
	char msg[512];
	struct dirent *e;
	DIR *d;
	int n = 0;

	ck_assert_int_eq(mkdir(at(0, "last-valid"), 0700), 0);
	ck_assert_int_eq(sb_config_file_keep(at(0, "last-valid"), "x\n", 2, "test",
					0600, msg, sizeof(msg)), -1);
	ck_assert_msg(strstr(msg, "cannot rename") && strstr(msg, dir),
		      "got '%s'", msg);
	ck_assert_ptr_nonnull(d = opendir(dir));
	while ((e = readdir(d)))
		if (e->d_name[0] != '.')
			n++;
	closedir(d);
	ck_assert_int_eq(n, 1);	/* the directory in the way, nothing else */
	ck_assert_int_eq(sb_config_file_keep(at(1, "no/such/dir"), "x\n", 2,
					"test", 0600, msg, sizeof(msg)), -1);
	ck_assert_msg(strstr(msg, "cannot write") && strstr(msg, "no/such/dir"),
		      "got '%s'", msg);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("conf_file");
	TCase *tc = tcase_create("conf_file");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_read_exact);
	tcase_add_test(tc, test_missing);
	tcase_add_test(tc, test_not_regular);
	tcase_add_test(tc, test_size_limit);
	tcase_add_test(tc, test_changed_while_read);
	tcase_add_test(tc, test_nul_byte);
	tcase_add_test(tc, test_keep_exact);
	tcase_add_test(tc, test_keep_fails_clean);
	suite_add_tcase(s, tc);
	return sb_check_run(s);
}
