/*
 * http.c - HTTP(S) GET through libcurl (http.h).
 *
 * What it does: one easy handle per client, reused for every fetch (curl
 * keeps the connection alive), connect and total timeouts, the body
 * collected into a growing buffer capped at HTTP_BODY_MAX, any HTTP status
 * of 400 or more reported as a failure. http_request_stream() adds a
 * POSTed form, an Authorization header, a per-request body bound and the
 * status for the caller to judge (the Prometheus API client), and hands
 * the body to the caller's function chunk by chunk as libcurl delivers
 * it instead of collecting it. What it does not:
 * retries (the caller decides what is worth retrying), redirects beyond a
 * few, parsing.
 *
 * CURLOPT_NOSIGNAL is set because the client runs in the recorder's
 * source thread: curl must not use SIGALRM for its DNS timeouts there.
 *
 * The total timeout is also checked as each piece of the body is
 * delivered: libcurl looks at its clock between reads, and one read of
 * a gzip bomb (up to 100 reads of 16 KiB a turn, each a thousand times
 * that decoded) is seconds of decoding and parsing in the write
 * function; checked there, a try ends within a piece of the timeout (a
 * 3 GiB bomb with a 1 s timeout: each try took 7 s before).
 */
#include "http.h"

#include <assert.h>
#include <curl/curl.h>
#include <stdlib.h>
#include <math.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "common.h"

struct http_client {
	CURL *curl;
	CURLM *multi;              /* drives the transfer, so that a cancel
				      is seen within HTTP_CANCEL_MS */
	const atomic_bool *cancel; /* NULL: never cancelled */
	char *buf;
	size_t len, cap;
	int overflow;
	size_t body_max;           /* of the fetch in flight */
	http_chunk_fn sink;        /* streaming: the body goes here, not
				      into buf */
	void *sink_arg;
	size_t streamed;           /* bytes handed to sink so far */
	int aborted;               /* sink asked to stop */
	double deadline;           /* now_monotonic() at which the fetch in
				      flight times out */
	int timed_out;             /* the write function saw the deadline */
	long connect_ms, total_ms;
	char curl_err[CURL_ERROR_SIZE];
};

int http_global_init(void)
{
	CURLcode rc = curl_global_init(CURL_GLOBAL_DEFAULT);
	if (rc != CURLE_OK)
		return error("cannot initialise libcurl: %s",
			     curl_easy_strerror(rc));
	return 0;
}

/* Whether the fetch in flight is past its total timeout (the write
 * functions stop it then: returning less than given makes curl end the
 * transfer with CURLE_WRITE_ERROR). */
static bool past_deadline(struct http_client *c)
{
	if (now_monotonic() <= c->deadline)
		return false;
	c->timed_out = 1;
	return true;
}

static size_t collect_body(char *data, size_t size, size_t nmemb, void *arg)
{
	struct http_client *c = arg;
	size_t n = size * nmemb;
	if (past_deadline(c))
		return 0;
	if (c->len + n > c->body_max) {
		c->overflow = 1;
		return 0;  /* makes curl stop with CURLE_WRITE_ERROR */
	}
	if (c->len + n + 1 > c->cap)
		xgrow((void **)&c->buf, &c->cap, c->len + n + 1, 1);
	memcpy(c->buf + c->len, data, n);
	c->len += n;
	c->buf[c->len] = '\0';
	return n;
}

/* The streaming write function: counts the bytes against the bound and
 * passes them on; returning less than n makes curl end the transfer
 * with CURLE_WRITE_ERROR. */
static size_t stream_body(char *data, size_t size, size_t nmemb, void *arg)
{
	struct http_client *c = arg;
	size_t n = size * nmemb;
	if (past_deadline(c))
		return 0;
	if (n > c->body_max - c->streamed) {
		c->overflow = 1;
		return 0;
	}
	c->streamed += n;
	long status = 0;
	curl_easy_getinfo(c->curl, CURLINFO_RESPONSE_CODE, &status);
	if (c->sink(c->sink_arg, status, data, n)) {
		c->aborted = 1;
		return 0;
	}
	return n;
}

struct http_client *http_client_new(double connect_timeout_s,
				    double total_timeout_s, bool keep_alive)
{
	struct http_client *c = xcalloc(1, sizeof(*c));
	c->curl = curl_easy_init();
	if (!c->curl) {
		free(c);
		error("cannot create a libcurl handle");
		return NULL;
	}
	c->connect_ms = (long)ceil(connect_timeout_s * 1000);
	c->total_ms = (long)ceil(total_timeout_s * 1000);
	if (c->connect_ms < 1)
		c->connect_ms = 1;
	if (c->total_ms < 1)
		c->total_ms = 1;
	CURL *h = c->curl;
	curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, c->connect_ms);
	curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, c->total_ms);
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, collect_body);
	curl_easy_setopt(h, CURLOPT_WRITEDATA, c);
	curl_easy_setopt(h, CURLOPT_ERRORBUFFER, c->curl_err);
	if (!keep_alive)
		curl_easy_setopt(h, CURLOPT_FORBID_REUSE, 1L);
	curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 1L);
	curl_easy_setopt(h, CURLOPT_MAXREDIRS, 3L);
	curl_easy_setopt(h, CURLOPT_USERAGENT, "memtrend/" MEMTREND_VERSION);
	/* Prometheus servers may gzip; curl decodes what it asks for. */
	curl_easy_setopt(h, CURLOPT_ACCEPT_ENCODING, "");
#if LIBCURL_VERSION_NUM >= 0x075500
	curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(h, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
#else
	curl_easy_setopt(h, CURLOPT_PROTOCOLS,
			 (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS));
	curl_easy_setopt(h, CURLOPT_REDIR_PROTOCOLS,
			 (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS));
#endif
	return c;
}

void http_client_free(struct http_client *c)
{
	if (!c)
		return;
	curl_easy_cleanup(c->curl);
	if (c->multi)
		curl_multi_cleanup(c->multi);
	free(c->buf);
	free(c);
}

void http_client_set_cancel(struct http_client *c, const atomic_bool *cancel)
{
	c->cancel = cancel;
}

/* curl_easy_perform() on the multi interface: the same transfer, but the
 * wait between its steps is at most HTTP_CANCEL_MS, after which the
 * cancel flag is looked at. A hung endpoint then holds a stopping
 * recorder for a tenth of a second, not for the whole timeout. */
static CURLcode perform(struct http_client *c)
{
	if (!c->multi)
		c->multi = curl_multi_init();
	if (!c->multi)
		return curl_easy_perform(c->curl);
	if (curl_multi_add_handle(c->multi, c->curl) != CURLM_OK)
		return curl_easy_perform(c->curl);
	CURLcode result = CURLE_OK;
	bool done = false;
	while (!done) {
		int running = 0;
		if (curl_multi_perform(c->multi, &running) != CURLM_OK) {
			result = CURLE_FAILED_INIT;
			break;
		}
		int left;
		CURLMsg *m;
		while ((m = curl_multi_info_read(c->multi, &left)) != NULL)
			if (m->msg == CURLMSG_DONE) {
				result = m->data.result;
				done = true;
			}
		if (done)
			break;
		if (c->cancel && atomic_load(c->cancel)) {
			result = CURLE_ABORTED_BY_CALLBACK;
			break;
		}
		if (curl_multi_poll(c->multi, NULL, 0, HTTP_CANCEL_MS, NULL) !=
		    CURLM_OK) {
			result = CURLE_FAILED_INIT;
			break;
		}
	}
	curl_multi_remove_handle(c->multi, c->curl);
	return result;
}

static int fetch(struct http_client *c, const char *url, long *status,
		 char *err, size_t errlen);

int http_get(struct http_client *c, const char *url, const char **body,
	     size_t *len, char *err, size_t errlen)
{
	long status = 0;
	c->body_max = HTTP_BODY_MAX;
	int rc = fetch(c, url, &status, err, errlen);
	if (rc)
		return rc;
	if (status >= 400) {
		snprintf(err, errlen, "HTTP %ld", status);
		return -1;
	}
	*body = c->buf;
	*len = c->len;
	return 0;
}

int http_request_stream(struct http_client *c, const struct http_request *r,
			http_chunk_fn fn, void *arg, long *status, char *err,
			size_t errlen)
{
	CURL *h = c->curl;
	struct curl_slist *headers = NULL;
	char *auth = NULL;
	if (r->authorization) {
		size_t n = strlen(r->authorization) + 32;
		auth = xmalloc(n);
		snprintf(auth, n, "Authorization: %s", r->authorization);
		headers = curl_slist_append(headers, auth);
	}
	if (r->form)
		headers = curl_slist_append(headers, "Content-Type: "
					    "application/x-www-form-urlencoded");
	curl_easy_setopt(h, CURLOPT_HTTPHEADER, headers);
	if (r->form) {
		curl_easy_setopt(h, CURLOPT_POSTFIELDS, r->form);
		curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE,
				 (long)strlen(r->form));
	} else {
		curl_easy_setopt(h, CURLOPT_HTTPGET, 1L);
	}
	curl_easy_setopt(h, CURLOPT_ACCEPT_ENCODING,
			 r->no_compression ? NULL : "");
	c->body_max = r->body_max ? r->body_max : HTTP_BODY_MAX;
	c->sink = fn;
	c->sink_arg = arg;
	c->streamed = 0;
	c->aborted = 0;
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, stream_body);
	int rc = fetch(c, r->url, status, err, errlen);
	if (rc == HTTP_UNREACHABLE)
		rc = -1;  /* this call's contract: -2 is the overflow */
	if (rc && c->aborted)
		rc = -3;
	else if (rc && c->overflow)
		rc = -2;
	/* The handle is reused: leave it as http_get() expects it. */
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, collect_body);
	c->sink = NULL;
	c->sink_arg = NULL;
	curl_easy_setopt(h, CURLOPT_HTTPHEADER, NULL);
	curl_easy_setopt(h, CURLOPT_HTTPGET, 1L);
	curl_easy_setopt(h, CURLOPT_ACCEPT_ENCODING, "");
	curl_slist_free_all(headers);
	if (auth) {
		memset(auth, 0, strlen(auth));  /* a credential */
		free(auth);
	}
	return rc;
}

char *http_escape(const char *s)
{
	char *e = curl_easy_escape(NULL, s, (int)strlen(s));
	if (!e) {
		error("out of memory");
		abort();
	}
	char *out = xstrdup(e);
	curl_free(e);
	return out;
}

/* One transfer of url with the options set; the body in c->buf. */
static int fetch(struct http_client *c, const char *url, long *status,
		 char *err, size_t errlen)
{
	c->len = 0;
	c->overflow = 0;
	c->timed_out = 0;
	c->deadline = now_monotonic() + (double)c->total_ms / 1000.0;
	c->curl_err[0] = '\0';
	if (c->buf)
		c->buf[0] = '\0';
	curl_easy_setopt(c->curl, CURLOPT_URL, url);
	CURLcode rc = perform(c);
	if (rc == CURLE_ABORTED_BY_CALLBACK) {
		snprintf(err, errlen, "cancelled: memtrend is stopping");
		return -1;
	}
	if (rc != CURLE_OK) {
		if (c->overflow)
			snprintf(err, errlen, "body larger than %zu MiB",
				 c->body_max >> 20);
		else if (rc == CURLE_OPERATION_TIMEDOUT || c->timed_out)
			snprintf(err, errlen, "timed out after %.3g s",
				 c->total_ms / 1000.0);
		else if (rc == CURLE_COULDNT_CONNECT) {
			snprintf(err, errlen, "cannot connect: %s",
				 c->curl_err[0] ? c->curl_err :
				 curl_easy_strerror(rc));
			return HTTP_UNREACHABLE;
		} else
			snprintf(err, errlen, "%s", c->curl_err[0] ?
				 c->curl_err : curl_easy_strerror(rc));
		return -1;
	}
	*status = 0;
	curl_easy_getinfo(c->curl, CURLINFO_RESPONSE_CODE, status);
	if (!c->buf)
		xgrow((void **)&c->buf, &c->cap, 1, 1);
	c->buf[c->len] = '\0';
	return 0;
}

char *http_url_redacted(char *buf, size_t n, const char *url,
			bool *had_password)
{
	assert(buf && n > 0 && url);
	if (had_password)
		*had_password = false;
	const char *scheme = strstr(url, "://");
	const char *auth = scheme ? scheme + 3 : url;
	/* the authority ends at the first '/', '?' or '#'; a userinfo part
	 * is what comes before its last '@' */
	size_t alen = strcspn(auth, "/?#");
	const char *at = NULL;
	for (const char *p = auth; p < auth + alen; p++)
		if (*p == '@')
			at = p;
	const char *colon = at ? memchr(auth, ':', (size_t)(at - auth)) : NULL;
	if (!colon) {
		snprintf(buf, n, "%s", url);
		return buf;
	}
	if (had_password)
		*had_password = true;
	snprintf(buf, n, "%.*s:***%s", (int)(colon - url), url, at);
	return buf;
}
