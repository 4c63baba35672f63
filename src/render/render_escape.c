/*
 * render_escape.c - making process-controlled strings safe to print
 * (render.h). A process chooses its own comm and command line, so they may
 * hold terminal escape sequences or bytes that are not UTF-8; these
 * functions never let such bytes through raw.
 */
#include <assert.h>
#include <stdio.h>
#include <string.h>

#include "render.h"

/* Length of the valid UTF-8 sequence at s (1-4), or 0 if invalid.
 * Rejects overlong forms, surrogates and code points above U+10FFFF. */
static size_t utf8_valid_len(const unsigned char *s)
{
	unsigned c = s[0];
	if (c < 0x80)
		return 1;
	size_t len;
	unsigned cp;
	if (c >= 0xC2 && c <= 0xDF) {
		len = 2;
		cp = c & 0x1F;
	} else if (c >= 0xE0 && c <= 0xEF) {
		len = 3;
		cp = c & 0x0F;
	} else if (c >= 0xF0 && c <= 0xF4) {
		len = 4;
		cp = c & 0x07;
	} else {
		return 0;
	}
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xC0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3F);
	}
	if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
	    (cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF)
		return 0;
	return len;
}

/* Append piece to buf if it fits. Every append leaves 4 bytes free, so
 * "..." and the NUL always fit when a piece does not. */
static bool put(char *buf, size_t n, size_t *at, const char *piece,
		size_t len)
{
	assert(n >= 4 && *at + 4 <= n);
	if (*at + len + 4 > n) {
		memcpy(buf + *at, "...", 3);
		*at += 3;
		return false;
	}
	memcpy(buf + *at, piece, len);
	*at += len;
	return true;
}

char *render_escape_terminal(char *buf, size_t n, const char *str)
{
	const unsigned char *s = (const unsigned char *)(str ? str : "");
	size_t at = 0;
	while (*s) {
		size_t len = utf8_valid_len(s);
		bool control = len == 1 && (*s < 0x20 || *s == 0x7F);
		/* C1 controls (U+0080-U+009F) are encoded as C2 80..C2 9F. */
		bool c1 = len == 2 && s[0] == 0xC2 && s[1] < 0xA0;
		if (len == 0 || control || c1) {
			char hex[16];
			size_t k = len ? len : 1, hl = 0;
			for (size_t i = 0; i < k; i++)
				hl += (size_t)snprintf(hex + hl,
						       sizeof(hex) - hl,
						       "\\x%02x", s[i]);
			if (!put(buf, n, &at, hex, hl))
				break;
			s += k;
			continue;
		}
		if (!put(buf, n, &at, (const char *)s, len))
			break;
		s += len;
	}
	buf[at] = '\0';
	return buf;
}

char *render_escape_utf8(char *buf, size_t n, const char *str)
{
	const unsigned char *s = (const unsigned char *)(str ? str : "");
	size_t at = 0;
	while (*s) {
		size_t len = utf8_valid_len(s);
		bool ok = len ? put(buf, n, &at, (const char *)s, len) :
				put(buf, n, &at, "\xEF\xBF\xBD", 3);
		if (!ok)
			break;
		s += len ? len : 1;
	}
	buf[at] = '\0';
	return buf;
}

/* Noncharacters (U+FDD0-U+FDEF, U+xFFFE, U+xFFFF): HTML5 calls them parse
 * errors, so they are replaced like invalid bytes. */
static bool utf8_noncharacter(const unsigned char *s, size_t len)
{
	unsigned cp;
	if (len == 3)
		cp = ((s[0] & 0x0Fu) << 12) | ((s[1] & 0x3Fu) << 6) |
		     (s[2] & 0x3Fu);
	else if (len == 4)
		cp = ((s[0] & 0x07u) << 18) | ((s[1] & 0x3Fu) << 12) |
		     ((s[2] & 0x3Fu) << 6) | (s[3] & 0x3Fu);
	else
		return false;
	return (cp >= 0xFDD0 && cp <= 0xFDEF) || (cp & 0xFFFE) == 0xFFFE;
}

char *render_escape_html(char *buf, size_t n, const char *str)
{
	const unsigned char *s = (const unsigned char *)(str ? str : "");
	size_t at = 0;
	while (*s) {
		size_t len = utf8_valid_len(s);
		const char *rep = NULL;
		char hex[8];
		switch (len == 1 ? *s : 0) {
		case '&': rep = "&amp;"; break;
		case '<': rep = "&lt;"; break;
		case '>': rep = "&gt;"; break;
		case '"': rep = "&quot;"; break;
		case '\'': rep = "&#39;"; break;
		default: break;
		}
		bool control = len == 1 && ((*s < 0x20 && *s != '\t' &&
					     *s != '\n') || *s == 0x7F);
		bool c1 = len == 2 && s[0] == 0xC2 && s[1] < 0xA0;
		if (control || c1) {
			snprintf(hex, sizeof(hex), "\\x%02x",
				 control ? s[0] : s[1]);
			rep = hex;
		} else if (len == 0 || utf8_noncharacter(s, len)) {
			rep = "\xEF\xBF\xBD";
		}
		bool ok = rep ? put(buf, n, &at, rep, strlen(rep)) :
				put(buf, n, &at, (const char *)s, len);
		if (!ok)
			break;
		s += len ? len : 1;
	}
	buf[at] = '\0';
	return buf;
}
