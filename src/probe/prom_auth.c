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
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		error("--auth-file: cannot open '%s': %m", path);
		return NULL;
	}
	struct stat st;
	if (fstat(fd, &st) == 0 && (st.st_mode & 077))
		warning("--auth-file: '%s' can be read by other users (chmod "
			"600 it)", path);
	char b[4096];
	ssize_t n = read(fd, b, sizeof(b) - 1);
	close(fd);
	if (n <= 0) {
		error("--auth-file: '%s' is empty", path);
		return NULL;
	}
	b[n] = '\0';
	b[strcspn(b, "\r\n")] = '\0';
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
