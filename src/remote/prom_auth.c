/*
 * prom_auth.c - reading --auth-file into an Authorization header
 * (prom_auth.h).
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common.h"
#include "prom_auth.h"

/* The Authorization header from --auth-file: `bearer TOKEN`, `basic
 * USER:PASSWORD`, or a bare TOKEN; first line only. */
char *prom_auth_read(const char *path)
{
	/* O_NONBLOCK: a FIFO with no writer would block open() forever;
	 * only a regular file is read (issue 31). */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		error("--auth-file: cannot open '%s': %m", path);
		return NULL;
	}
	struct stat st;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		error("--auth-file: '%s' is not a regular file (a directory, "
		      "a FIFO, a device): give the file that holds the "
		      "credentials", path);
		close(fd);
		return NULL;
	}
	if (st.st_mode & 077)
		warning("--auth-file: '%s' can be read by other users (chmod "
			"600 it)", path);
	char b[PROM_AUTH_LINE_MAX + 2];
	size_t n = 0;
	for (;;) {   /* a regular file: read() returns what there is */
		ssize_t r = read(fd, b + n, sizeof(b) - 1 - n);
		if (r <= 0)
			break;
		n += (size_t)r;
		if (n == sizeof(b) - 1 || memchr(b, '\n', n))
			break;
	}
	close(fd);
	if (n == 0) {
		error("--auth-file: '%s' is empty", path);
		return NULL;
	}
	b[n] = '\0';
	size_t line = strcspn(b, "\r\n");
	if (line > PROM_AUTH_LINE_MAX) {
		error("--auth-file: the first line of '%s' is longer than %d "
		      "bytes: not a credential memtrend would send whole",
		      path, PROM_AUTH_LINE_MAX);
		memset(b, 0, sizeof(b));
		return NULL;
	}
	b[line] = '\0';
	char *p = b;
	while (*p == ' ' || *p == '\t')
		p++;
	char *out = NULL;
	if (!strncasecmp(p, "basic ", 6)) {
		static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghij"
					  "klmnopqrstuvwxyz0123456789+/";
		const unsigned char *s = (const unsigned char *)p + 6;
		while (*s == ' ')
			s++;
		size_t len = strlen((const char *)s);
		if (!memchr(s, ':', len)) {
			error("--auth-file: basic needs USER:PASSWORD");
			memset(b, 0, sizeof(b));
			return NULL;
		}
		out = xmalloc(8 + 4 * (len / 3 + 1) + 1);
		char *o = out + sprintf(out, "Basic ");
		for (size_t i = 0; i < len; i += 3) {
			unsigned v = (unsigned)s[i] << 16;
			if (i + 1 < len)
				v |= (unsigned)s[i + 1] << 8;
			if (i + 2 < len)
				v |= s[i + 2];
			*o++ = tab[(v >> 18) & 63];
			*o++ = tab[(v >> 12) & 63];
			*o++ = i + 1 < len ? tab[(v >> 6) & 63] : '=';
			*o++ = i + 2 < len ? tab[v & 63] : '=';
		}
		*o = '\0';
	} else {
		if (!strncasecmp(p, "bearer ", 7))
			p += 7;
		while (*p == ' ')
			p++;
		if (!*p) {
			error("--auth-file: '%s' holds no token", path);
			return NULL;
		}
		out = xmalloc(strlen(p) + 8);
		sprintf(out, "Bearer %s", p);
	}
	memset(b, 0, sizeof(b));
	return out;
}
