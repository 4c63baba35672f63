/*
 * prom_auth.h - the Authorization header of report --prometheus from
 * --auth-file (docs/fleet.md, "Errors"): the file's first line is
 * `bearer TOKEN`, `basic USER:PASSWORD` (base64-encoded here) or a bare
 * TOKEN. Credentials never come from the command line, and are never
 * printed: messages name the file, not its content.
 *
 * What it does not do: send anything (prometheus.c puts the header on
 * each request), or refuse a file others can read (a warning says so).
 */
#ifndef MEMTREND_PROM_AUTH_H
#define MEMTREND_PROM_AUTH_H

/* The longest first line read: a longer one is refused, never cut. */
#define PROM_AUTH_LINE_MAX 4095

/* `Bearer TOKEN` or `Basic BASE64`, owned (the caller wipes and frees
 * it); NULL after a message: the path is no regular file (a FIFO is
 * never waited on, a directory is one message), it is empty, its first
 * line is over PROM_AUTH_LINE_MAX bytes, or holds no credential. The
 * file's bytes read are wiped. */
char *prom_auth_read(const char *path);

#endif
