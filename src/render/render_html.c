/*
 * render_html.c - `report --html`: one self-contained HTML5 page (render.h)
 * that a person reads on a laptop or prints.
 *
 * Per target: the verdict with its reasons and settle text; the figures;
 * plots as inline SVG -- footprint over time (idle windows shaded,
 * restarts marked, the slope and its 95 % band over the analysed
 * incarnation, plateau, caps and limit as labelled lines), requests and
 * connections beneath on the same time axis, footprint against cumulative
 * requests with the per-request slope, components stacked over time,
 * gauges; then the findings as tables (per request, idle windows and
 * growth accounting, exhaustion, restarts with what each gave back, steps,
 * attribution to gauges, incarnations). Notes close the page.
 *
 * What it does not do: compute anything a verdict depends on. It reads
 * findings (analysis.h) and the series; what it derives is for drawing
 * only (pixel columns, the reset-free request count from idle.h's
 * idle_work_increase(), which gauges get a bytes axis by
 * attribution.h's name rule).
 *
 * Safety: every string a process or a file controls (target name, comm,
 * command line, gauge names, notes, source file name, cap names) goes
 * through escape_html(); none is ever placed in a script, a style or an
 * id. The page loads nothing: a Content-Security-Policy meta allows no
 * fetch (default-src 'none'), and scripts only by the SHA-256 of the two
 * inline scripts written here, so an injected tag or event handler could
 * neither run nor load anything. The inline scripts record errors and CSP
 * violations on <html> (data-js-errors, data-csp-violations) and set
 * data-js-ready when done; the end-to-end test reads them.
 *
 * Bounds: O(n) per series; every plotted series holds at most about
 * 4 x PLOT_W points whatever n is (svg.h); shaded windows and restart
 * marks are merged per pixel column; tables list at most TABLE_ROWS_MAX
 * rows. A report of 10^6 samples stays well under 1 MB.
 */
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "render.h"
#include "svg.h"
#include "units.h"

#define PLOT_W 960.0
#define M_LEFT 84.0
#define M_RIGHT 16.0
#define M_TOP 16.0
#define M_BOTTOM 40.0
#define TABLE_ROWS_MAX 200
#define RESTART_LABELS_MAX 12
#define GAUGES_MAX 8
/* A time step this many times the typical one breaks the line. */
#define GAP_FACTOR 5.0

/* ---- palette (Okabe-Ito: safe for the common colour-vision types) -------- */

#define C_BLACK "#000000"
#define C_ORANGE "#E69F00"
#define C_SKY "#56B4E9"
#define C_GREEN "#009E73"
#define C_YELLOW "#F0E442"
#define C_BLUE "#0072B2"
#define C_VERMILLION "#D55E00"
#define C_PURPLE "#CC79A7"

/* Components stacked over time, bottom to top. A new component (a GPU's
 * memory, say) is one entry here. */
static const struct stack_layer {
	enum series_component comp;
	const char *label;
	const char *colour;
} stack_layers[] = {
	{COMP_ANON, "anon", C_BLUE},
	{COMP_SWAP, "swap", C_VERMILLION},
	{COMP_SHMEM, "shmem", C_PURPLE},
	{COMP_GPU, "GPU memory (device-local)", C_GREEN},
	{COMP_FILE, "file (page cache; not in the footprint)", C_SKY},
};
#define N_LAYERS ARRAY_SIZE(stack_layers)

static const char page_style[] =
":root{color-scheme:light}\n"
"body{font:15px/1.45 system-ui,-apple-system,'Segoe UI',Roboto,"
"'DejaVu Sans',sans-serif;color:#1b1b1b;background:#fff;max-width:1080px;"
"margin:0 auto;padding:12px 24px 40px}\n"
"h1{font-size:1.5em;margin:.4em 0 .2em}\n"
"h2{font-size:1.3em;margin:1.6em 0 .4em;padding-top:.6em;"
"border-top:2px solid #ccc;overflow-wrap:anywhere}\n"
"h3{font-size:1.05em;margin:1.2em 0 .3em}\n"
".muted{color:#555}\n"
".verdict{display:inline-block;padding:1px 10px;border-radius:4px;"
"font-weight:600;color:#fff;font-size:.9em;vertical-align:middle;"
"-webkit-print-color-adjust:exact;print-color-adjust:exact}\n"
".v-growing{background:" C_VERMILLION "}.v-plateau{background:" C_ORANGE
";color:#000}.v-stable{background:" C_GREEN "}.v-inconclusive{background:"
C_BLUE "}\n"
".reasons{margin:.3em 0}.settle{font-weight:600}\n"
"figure{margin:14px 0 18px;break-inside:avoid}\n"
"figcaption{font-weight:600;margin-bottom:2px}\n"
"svg.plot{display:block;width:100%;height:auto;"
"-webkit-print-color-adjust:exact;print-color-adjust:exact}\n"
"svg text{font-family:system-ui,'DejaVu Sans',sans-serif;font-size:12px;"
"fill:#333}\n"
"svg text.tick{fill:#555;font-size:11.5px}svg text.date{fill:#777;"
"font-size:10.5px}svg text.lbl{font-size:11.5px}\n"
".grid{stroke:#e4e4e4;stroke-width:1}.frame{fill:none;stroke:#999}\n"
".fp{fill:none;stroke:" C_BLUE ";stroke-width:1.4;"
"stroke-linejoin:round}\n"
".slope{fill:none;stroke:" C_VERMILLION ";stroke-width:2;"
"stroke-dasharray:10 5}\n"
".band{fill:" C_VERMILLION ";fill-opacity:.2;stroke:none}\n"
".idle{fill:#000;fill-opacity:.09}\n"
".restart{stroke:#000;stroke-width:1;stroke-dasharray:4 3}\n"
".plateau{stroke:" C_GREEN ";stroke-width:1.6;stroke-dasharray:7 3}\n"
".approach{stroke:" C_GREEN ";stroke-width:1.3;stroke-dasharray:2 4}\n"
".step{stroke:#000;stroke-width:3;stroke-linecap:butt}\n"
".cap{stroke:" C_PURPLE ";stroke-width:1.6;stroke-dasharray:9 3 2 3}\n"
".limit{stroke:#000;stroke-width:1.3;stroke-dasharray:2 3}\n"
".req{fill:none;stroke:" C_ORANGE ";stroke-width:1.5}\n"
".conn{fill:none;stroke:" C_SKY ";stroke-width:1.5}\n"
".gauge{fill:none;stroke:" C_GREEN ";stroke-width:1.4}\n"
".total{fill:none;stroke:#222;stroke-width:.9}\n"
".cursor{stroke:#333;stroke-width:.8;visibility:hidden}\n"
".legend{font-size:.88em;color:#333;margin:2px 0 0}"
".legend span{margin-right:14px;white-space:nowrap}\n"
".sw{display:inline-block;width:18px;height:10px;margin-right:5px;"
"vertical-align:middle;border:1px solid #0003;"
"-webkit-print-color-adjust:exact;print-color-adjust:exact}\n"
".sw-line{height:0;border:0;border-top:3px solid}\n"
".sw-dash{height:0;border:0;border-top:2px dashed}\n"
".readout{font:12.5px ui-monospace,'DejaVu Sans Mono',monospace;"
"color:#333;min-height:1.5em;overflow-wrap:anywhere}\n"
"table{border-collapse:collapse;margin:4px 0 10px;font-size:.92em}\n"
"th,td{padding:3px 10px 3px 0;border-bottom:1px solid #e6e6e6;"
"text-align:left;vertical-align:top}\n"
"thead th{border-bottom:1px solid #999}\n"
"td.n,th.n{text-align:right;font-variant-numeric:tabular-nums}\n"
"table.kv th{font-weight:600;white-space:nowrap;padding-right:18px}\n"
"code{font:12.5px ui-monospace,'DejaVu Sans Mono',monospace;"
"overflow-wrap:anywhere}\n"
"nav ul{margin:.2em 0}\n"
"@media print{body{max-width:none;padding:0;font-size:10pt}"
"nav,.readout,.cursor{display:none}"
"section.target{break-before:page}section.target:first-of-type"
"{break-before:auto}h2{border-top:0}table{font-size:9pt}"
"a{color:inherit;text-decoration:none}}\n"
"@page{size:A4;margin:12mm}\n";

/* Records script errors and CSP violations on <html>; runs first. */
static const char head_script[] =
"(function(){var d=document.documentElement,n=0,c=0;"
"d.setAttribute(\"data-js-errors\",\"0\");"
"window.addEventListener(\"error\",function(e){n++;"
"d.setAttribute(\"data-js-errors\",String(n));"
"d.setAttribute(\"data-js-error\",String(e.message||"
"(e.target&&e.target.tagName)||\"error\"));},true);"
"document.addEventListener(\"securitypolicyviolation\",function(e){c++;"
"d.setAttribute(\"data-csp-violations\",String(c));"
"d.setAttribute(\"data-csp-blocked\",String(e.violatedDirective)+\" \"+"
"String(e.blockedURI));});})();";

/* Hover readouts: the value under the pointer, read back from the drawn
 * points (pixel columns) through each panel's scale (data-* attributes).
 * Shows the latest values until the pointer moves. */
static const char body_script[] =
"(function(){\"use strict\";\n"
"var B=[\"B\",\"KiB\",\"MiB\",\"GiB\",\"TiB\"],"
"D=[\"B\",\"kB\",\"MB\",\"GB\",\"TB\"];\n"
"function sig3(x){return x>=999.5?x.toFixed(0):String(+x.toPrecision(3));}\n"
"function bytes(v,dec){var a=Math.abs(v),b=dec?1000:1024,u=0;"
"while(u<4&&a>=999.5){a/=b;u++;}var s=sig3(a);"
"return(v<0&&s!==\"0\"?\"-\":\"\")+s+\" \"+(dec?D:B)[u];}\n"
"function fmt(k,v){if(!isFinite(v))return\"n/a\";"
"if(k===\"t\")return new Date(Math.floor(v)*1000).toISOString()"
".replace(/\\.\\d+Z$/,\"Z\");"
"if(k===\"b\"||k===\"d\")return bytes(v,k===\"d\");"
"if(k===\"c\")return Math.round(v).toLocaleString(\"en-US\");"
"return v.toLocaleString(\"en-US\",{maximumSignificantDigits:4});}\n"
"function lin(a0,a1,p0,p1,p){return p1===p0?a0:a0+(p-p0)*(a1-a0)/(p1-p0);}\n"
"function num(el,k){return parseFloat(el.getAttribute(\"data-\"+k));}\n"
"function setup(svg){\n"
"var fig=svg.closest(\"figure\"),out=fig&&fig.querySelector(\".readout\"),"
"cur=svg.querySelector(\".cursor\");\n"
"var x0=num(svg,\"x0\"),x1=num(svg,\"x1\"),px0=num(svg,\"px0\"),"
"px1=num(svg,\"px1\"),xk=svg.getAttribute(\"data-xk\"),"
"xl=svg.getAttribute(\"data-xl\")||\"\";\n"
"var list=[],by={};\n"
"svg.querySelectorAll(\"polyline[data-k]\").forEach(function(pl){"
"var g=pl.closest(\"[data-yk]\"),k=pl.getAttribute(\"data-k\"),s=by[k];"
"if(!g)return;"
"if(!s){s=by[k]={k:k,yk:g.getAttribute(\"data-yk\"),y0:num(g,\"y0\"),"
"y1:num(g,\"y1\"),py0:num(g,\"py0\"),py1:num(g,\"py1\"),x:[],y:[]};"
"list.push(s);}"
"var a=(pl.getAttribute(\"points\")||\"\").trim().split(/[\\s,]+/);"
"for(var i=0;i+1<a.length;i+=2){s.x.push(+a[i]);s.y.push(+a[i+1]);}});\n"
"function at(s,px){var lo=0,hi=s.x.length;"
"while(lo<hi){var m=(lo+hi)>>1;if(s.x[m]<px-0.5)lo=m+1;else hi=m;}"
"var mn=Infinity,mx=-Infinity;"
"for(var j=lo;j<s.x.length&&s.x[j]<=px+0.5;j++){"
"mn=Math.min(mn,s.y[j]);mx=Math.max(mx,s.y[j]);}"
"if(mn>mx)return null;"
"return[lin(s.y0,s.y1,s.py0,s.py1,mx),lin(s.y0,s.y1,s.py0,s.py1,mn)];}\n"
"function show(px){px=Math.min(Math.max(px,px0),px1);"
"var parts=[(xl?xl+\" \":\"\")+fmt(xk,lin(x0,x1,px0,px1,px))];"
"list.forEach(function(s){var v=at(s,px);if(!v)return;"
"var a=fmt(s.yk,v[0]),b=fmt(s.yk,v[1]);"
"parts.push(s.k+\" \"+(a===b?a:a+\" \\u2013 \"+b));});"
"if(out)out.textContent=parts.join(\"  \\u00b7  \");"
"if(cur){cur.setAttribute(\"x1\",px);cur.setAttribute(\"x2\",px);}}\n"
"svg.addEventListener(\"mousemove\",function(e){var m=svg.getScreenCTM();"
"if(!m)return;var p=svg.createSVGPoint();p.x=e.clientX;p.y=e.clientY;"
"show(p.matrixTransform(m.inverse()).x);"
"if(cur)cur.style.visibility=\"visible\";});\n"
"svg.addEventListener(\"mouseleave\",function(){"
"if(cur)cur.style.visibility=\"hidden\";});\n"
"show(px1);}\n"
"document.querySelectorAll(\"svg[data-xk]\").forEach(setup);\n"
"document.documentElement.setAttribute(\"data-js-ready\",\"1\");\n"
"})();";

/* ---- SHA-256 (FIPS 180-4), for the CSP hashes of the scripts ------------- */

static const uint32_t sha_k[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b,
	0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01,
	0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7,
	0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc,
	0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152,
	0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147,
	0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc,
	0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
	0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819,
	0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08,
	0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f,
	0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
	0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

static uint32_t ror32(uint32_t x, int n) { return (x >> n) | (x << (32 - n)); }

static void sha256_block(uint32_t h[8], const unsigned char *p)
{
	uint32_t w[64], v[8];
	for (int i = 0; i < 16; i++)
		w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
		       (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
	for (int i = 16; i < 64; i++) {
		uint32_t s0 = ror32(w[i - 15], 7) ^ ror32(w[i - 15], 18) ^
			      (w[i - 15] >> 3);
		uint32_t s1 = ror32(w[i - 2], 17) ^ ror32(w[i - 2], 19) ^
			      (w[i - 2] >> 10);
		w[i] = w[i - 16] + s0 + w[i - 7] + s1;
	}
	memcpy(v, h, sizeof(v));
	for (int i = 0; i < 64; i++) {
		uint32_t s1 = ror32(v[4], 6) ^ ror32(v[4], 11) ^
			      ror32(v[4], 25);
		uint32_t ch = (v[4] & v[5]) ^ (~v[4] & v[6]);
		uint32_t t1 = v[7] + s1 + ch + sha_k[i] + w[i];
		uint32_t s0 = ror32(v[0], 2) ^ ror32(v[0], 13) ^
			      ror32(v[0], 22);
		uint32_t mj = (v[0] & v[1]) ^ (v[0] & v[2]) ^ (v[1] & v[2]);
		memmove(v + 1, v, 7 * sizeof(uint32_t));
		v[4] += t1;
		v[0] = t1 + s0 + mj;
	}
	for (int i = 0; i < 8; i++)
		h[i] += v[i];
}

static void sha256(const void *data, size_t len, unsigned char out[32])
{
	uint32_t h[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
			 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
	const unsigned char *p = data;
	size_t left = len;
	for (; left >= 64; left -= 64, p += 64)
		sha256_block(h, p);
	unsigned char tail[128] = {0};
	memcpy(tail, p, left);
	tail[left] = 0x80;
	size_t tl = left + 9 <= 64 ? 64 : 128;
	uint64_t bits = (uint64_t)len * 8;
	for (int i = 0; i < 8; i++)
		tail[tl - 1 - i] = (unsigned char)(bits >> (8 * i));
	sha256_block(h, tail);
	if (tl == 128)
		sha256_block(h, tail + 64);
	for (int i = 0; i < 8; i++)
		for (int j = 0; j < 4; j++)
			out[4 * i + j] = (unsigned char)(h[i] >> (24 - 8 * j));
}

/* 'sha256-BASE64' of a script's text, as CSP wants it. */
static void csp_hash(char *buf, size_t n, const char *script)
{
	static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
				  "abcdefghijklmnopqrstuvwxyz0123456789+/";
	unsigned char d[33] = {0};
	sha256(script, strlen(script), d);
	char enc[48];
	size_t o = 0;
	for (size_t i = 0; i < 32; i += 3) {
		uint32_t v = (uint32_t)d[i] << 16 |
			     (uint32_t)(i + 1 < 32 ? d[i + 1] : 0) << 8 |
			     (i + 2 < 32 ? d[i + 2] : 0);
		enc[o++] = b64[(v >> 18) & 63];
		enc[o++] = b64[(v >> 12) & 63];
		enc[o++] = i + 1 < 32 ? b64[(v >> 6) & 63] : '=';
		enc[o++] = i + 2 < 32 ? b64[v & 63] : '=';
	}
	enc[o] = '\0';
	snprintf(buf, n, "'sha256-%s'", enc);
}

/* ---- text helpers -------------------------------------------------------- */

/* Escaped text of any length (escape_html into a buffer that holds it). */
static void put_esc(FILE *out, const char *s)
{
	if (!s)
		return;
	size_t len = strlen(s);
	char small[512];
	char *buf = len * 6 + 4 <= sizeof(small) ? small :
		    xmalloc(len * 6 + 4);
	size_t cap = buf == small ? sizeof(small) : len * 6 + 4;
	fputs(escape_html(buf, cap, s), out);
	if (buf != small)
		free(buf);
}

/* Per-target formatting state (units follow the readings). */
struct ctx {
	FILE *out;
	const struct dataset *d;
	const struct render_html_options *o;
	const struct target_findings *f;
	const struct series *s;
	size_t ti;                 /* target index (ids) */
	bool decimal;
	enum svg_axis_kind bytes_kind;
	double *work;              /* cumulative requests, or NULL */
	double work_total;
	double gap_s;              /* time step that breaks a line; INF */
	double t_lo, t_hi;         /* time axis */
};

/* The formatters are render_reason.c's, in the target's units. */
static char *size_s(const struct ctx *c, char *buf, size_t n, double v)
{
	return render_size(buf, n, v, c->decimal);
}

static char *slope_s(const struct ctx *c, char *buf, size_t n, double bph)
{
	return render_rate(buf, n, bph, c->decimal);
}

static char *per_req_s(const struct ctx *c, char *buf, size_t n, double v)
{
	return render_per_request(buf, n, v, c->decimal);
}

static char *dur_s(char *buf, size_t n, double s)
{
	if (isinf(s)) {
		snprintf(buf, n, "never");
		return buf;
	}
	return render_duration(buf, n, s);
}

static char *time_s(char *buf, size_t n, double t)
{
	return units_format_time(buf, n, t);
}

static char *p_s(char *buf, size_t n, double p)
{
	return render_p_value(buf, n, p, 3);
}

/* <tr><th>key</th><td>escaped value</td></tr> */
static void kv_row(FILE *out, const char *key, const char *value)
{
	fprintf(out, "<tr><th>%s</th><td>", key);
	put_esc(out, value);
	fputs("</td></tr>\n", out);
}

/* ---- plot frame ---------------------------------------------------------- */

struct panel {
	double top, bottom;        /* pixel rows of the plot area */
	struct svg_scale sx, sy;
	enum svg_axis_kind ykind;
};

static const char *axis_code(enum svg_axis_kind k)
{
	switch (k) {
	case SVG_AXIS_BYTES: return "b";
	case SVG_AXIS_BYTES_DECIMAL: return "d";
	case SVG_AXIS_COUNT: return "c";
	case SVG_AXIS_TIME: return "t";
	case SVG_AXIS_NUMBER: break;
	}
	return "n";
}

/* <svg> with the x scale for the readout script. */
static void svg_open(FILE *out, double height, const char *label,
		     const struct svg_scale *sx, enum svg_axis_kind xkind,
		     const char *xlabel)
{
	fprintf(out, "<svg class=\"plot\" xmlns=\"http://www.w3.org/2000/svg\" "
		"viewBox=\"0 0 %.0f %.0f\" role=\"img\" aria-label=\"%s\" "
		"data-x0=\"%.17g\" data-x1=\"%.17g\" data-px0=\"%.1f\" "
		"data-px1=\"%.1f\" data-xk=\"%s\"%s%s%s>\n",
		PLOT_W, height, label, sx->d0, sx->d1, sx->p0, sx->p1,
		axis_code(xkind), xlabel ? " data-xl=\"" : "",
		xlabel ? xlabel : "", xlabel ? "\"" : "");
}

static void svg_close(FILE *out, double height)
{
	fprintf(out, "<line class=\"cursor\" x1=\"%.1f\" y1=\"%.1f\" "
		"x2=\"%.1f\" y2=\"%.1f\"/>\n</svg>\n", M_LEFT, M_TOP,
		M_LEFT, height - M_BOTTOM + 4);
}

/* Horizontal grid lines and labels of the y axis. */
static void y_axis(FILE *out, const struct panel *p, double lo, double hi,
		   int target)
{
	struct svg_ticks tk;
	svg_ticks_make(&tk, p->ykind, lo, hi, target);
	for (size_t i = 0; i < tk.n; i++) {
		double y = svg_map(&p->sy, tk.v[i]);
		if (y < p->top - 0.5 || y > p->bottom + 0.5)
			continue;
		fprintf(out, "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" "
			"x2=\"%.1f\" y2=\"%.1f\"/><text class=\"tick\" "
			"x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n",
			M_LEFT, y, PLOT_W - M_RIGHT, y, M_LEFT - 6, y + 4,
			tk.label[i]);
	}
}

/* Vertical grid lines; labels (and dates) under the panel when asked. */
static void x_axis(FILE *out, const struct panel *p, enum svg_axis_kind k,
		   int target, bool labels, const char *title)
{
	struct svg_ticks tk;
	svg_ticks_make(&tk, k, p->sx.d0, p->sx.d1, target);
	for (size_t i = 0; i < tk.n; i++) {
		double x = svg_map(&p->sx, tk.v[i]);
		fprintf(out, "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" "
			"x2=\"%.1f\" y2=\"%.1f\"/>\n", x, p->top, x,
			p->bottom);
		if (!labels)
			continue;
		/* A label at the right edge ends there (never cut off). */
		const char *anchor = x > PLOT_W - M_RIGHT - 30 ? "end" :
				     "middle";
		fprintf(out, "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" "
			"text-anchor=\"%s\">%s</text>\n", x, p->bottom + 15,
			anchor, tk.label[i]);
		if (tk.label2[i][0])
			fprintf(out, "<text class=\"date\" x=\"%.1f\" "
				"y=\"%.1f\" text-anchor=\"%s\">%s</text>\n",
				x, p->bottom + 28, anchor, tk.label2[i]);
	}
	/* The axis' unit under the y labels, clear of the ticks. */
	if (labels && title)
		fprintf(out, "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" "
			"text-anchor=\"end\">%s</text>\n", M_LEFT - 30,
			p->bottom + 15, title);
}

static void frame(FILE *out, const struct panel *p)
{
	fprintf(out, "<rect class=\"frame\" x=\"%.1f\" y=\"%.1f\" "
		"width=\"%.1f\" height=\"%.1f\"/>\n", M_LEFT, p->top,
		PLOT_W - M_RIGHT - M_LEFT, p->bottom - p->top);
}

static void clip_def(FILE *out, const char *id, const struct panel *p)
{
	fprintf(out, "<defs><clipPath id=\"%s\"><rect x=\"%.1f\" y=\"%.1f\" "
		"width=\"%.1f\" height=\"%.1f\"/></clipPath></defs>\n", id,
		M_LEFT, p->top, PLOT_W - M_RIGHT - M_LEFT, p->bottom - p->top);
}

/* Opens the group the readout reads a panel's y scale from. */
static void panel_group(FILE *out, const struct panel *p, const char *clip)
{
	fprintf(out, "<g data-yk=\"%s\" data-y0=\"%.17g\" data-y1=\"%.17g\" "
		"data-py0=\"%.1f\" data-py1=\"%.1f\" clip-path=\"url(#%s)\">\n",
		axis_code(p->ykind), p->sy.d0, p->sy.d1, p->sy.p0, p->sy.p1,
		clip);
}

/* y range [lo, hi] padded so lines do not sit on the frame. */
static void pad_range(double *lo, double *hi, bool from_zero)
{
	if (!isfinite(*lo) || !isfinite(*hi)) {
		*lo = 0;
		*hi = 1;
		return;
	}
	double span = *hi - *lo;
	if (span <= 0)
		span = fmax(fabs(*hi) * 0.1, 1);
	if (from_zero && *lo >= 0) {
		*lo = 0;
	} else {
		*lo -= span * 0.06;
		if (from_zero && *lo < 0)
			*lo = 0;
	}
	*hi += span * 0.06;
}

/* ---- what the plots share ------------------------------------------------ */

static uint32_t inc_of(const struct series *s, size_t i)
{
	return s->n_incs ? s->inc[i] : 0;
}

/* The typical time step: the median of up to 2001 evenly spread steps.
 * A step over GAP_FACTOR times it breaks lines (recording paused). */
static double gap_threshold(const struct series *s)
{
	if (s->n < 3)
		return INFINITY;
	size_t m = s->n - 1 < 2001 ? s->n - 1 : 2001;
	double *dt = xmalloc(m * sizeof(double));
	size_t k = 0;
	for (size_t j = 0; j < m; j++) {
		size_t i = (size_t)((double)j * (double)(s->n - 2) /
				    (double)(m > 1 ? m - 1 : 1));
		double v = s->t[i + 1] - s->t[i];
		if (isfinite(v))
			dt[k++] = v;
	}
	double med = k ? stats_median_inplace(dt, k) : 0;
	free(dt);
	return med > 0 ? med * GAP_FACTOR : INFINITY;
}

/* One series over time into a polyline (per-column extremes), breaking
 * at restarts and gaps. */
static void draw_over_time(struct ctx *c, const struct panel *p,
			   const double *y, const char *attrs)
{
	const struct series *s = c->s;
	struct svg_line l;
	svg_line_begin(&l, c->out, &p->sx, &p->sy, attrs);
	for (size_t i = 0; i < s->n; i++) {
		if (i && (inc_of(s, i) != inc_of(s, i - 1) ||
			  s->t[i] - s->t[i - 1] > c->gap_s))
			svg_line_break(&l);
		svg_line_add(&l, s->t[i], y[i]);
	}
	svg_line_end(&l);
}

/* Idle windows as shaded columns, merged where they touch in pixels. */
static void draw_idle(struct ctx *c, const struct panel *p)
{
	const struct idle_findings *id = &c->f->idle;
	double x0 = NAN, x1 = NAN;
	for (size_t i = 0; i <= id->n; i++) {
		double a = NAN, b = NAN;
		if (i < id->n) {
			a = svg_map(&p->sx, id->windows[i].start);
			b = svg_map(&p->sx, id->windows[i].end);
			if (b - a < 1)
				b = a + 1;  /* at least a pixel */
			if (isfinite(x1) && a <= x1 + 0.5) {
				x1 = fmax(x1, b);
				continue;
			}
		}
		if (isfinite(x0))
			fprintf(c->out, "<rect class=\"idle\" x=\"%.1f\" "
				"y=\"%.1f\" width=\"%.1f\" height=\"%.1f\">"
				"<title>idle</title></rect>\n", x0, p->top,
				x1 - x0, p->bottom - p->top);
		x0 = a;
		x1 = b;
	}
}

/* Restarts: a dashed line at the first point of each new incarnation
 * (one per pixel column), labelled with the new pid while they are few. */
static void draw_restarts(struct ctx *c, const struct panel *p, bool labels)
{
	const struct series *s = c->s;
	const struct restart_findings *rf = &c->f->restarts;
	size_t restarts = 0, j = 0, k = 0;
	for (size_t i = 1; i < s->n; i++)
		if (inc_of(s, i) != inc_of(s, i - 1))
			restarts++;
	labels = labels && restarts <= RESTART_LABELS_MAX;
	long last_col = LONG_MIN;
	for (size_t i = 1; i < s->n; i++) {
		if (inc_of(s, i) == inc_of(s, i - 1))
			continue;
		/* The restart finding of this point, if any (both in time
		 * order). */
		while (j < rf->n && rf->r[j].index < i)
			j++;
		const struct restart *r = j < rf->n && rf->r[j].index == i ?
					  &rf->r[j] : NULL;
		double x = svg_map(&p->sx, s->t[i]);
		long col = (long)floor(x);
		if (col == last_col)
			continue;
		last_col = col;
		fprintf(c->out, "<line class=\"restart\" x1=\"%.1f\" "
			"y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", x, p->top, x,
			p->bottom);
		if (!labels)
			continue;
		const struct incarnation *in = &s->incs[inc_of(s, i)];
		/* Alternate rows, so close restarts do not overprint. */
		bool right = x > PLOT_W - M_RIGHT - 160;
		fprintf(c->out, "<text class=\"lbl\" x=\"%.1f\" y=\"%.1f\"%s>"
			"restart", right ? x - 3 : x + 3,
			p->top + 12 + 13 * (double)(k++ % 2),
			right ? " text-anchor=\"end\"" : "");
		if (in->pid >= 0)
			fprintf(c->out, ": pid %lld", (long long)in->pid);
		if (r && isfinite(r->recovered)) {
			char b[64];
			fprintf(c->out, ", recovered %s",
				size_s(c, b, sizeof(b), r->recovered));
		}
		fputs("</text>\n", c->out);
	}
}

/* Steps of the analysed incarnation: a bar from the level before to the
 * level after, at the step's time. */
static void draw_steps(struct ctx *c, const struct panel *p)
{
	const struct step_findings *sf = &c->f->steps;
	for (size_t i = 0; i < sf->n; i++) {
		const struct step *st = &sf->steps[i];
		if (!isfinite(st->before) || !isfinite(st->after))
			continue;
		double x = svg_map(&p->sx, st->time);
		char b1[64], b2[64];
		fprintf(c->out, "<line class=\"step\" x1=\"%.1f\" y1=\"%.1f\" "
			"x2=\"%.1f\" y2=\"%.1f\"><title>step %s \u2192 %s"
			"</title></line>\n", x, svg_map(&p->sy, st->before), x,
			svg_map(&p->sy, st->after),
			size_s(c, b1, sizeof(b1), st->before),
			size_s(c, b2, sizeof(b2), st->after));
	}
}

/* A labelled horizontal line from x0 to x1 (pixels). */
static void hline(FILE *out, const struct panel *p, const char *cls,
		  double v, double x0, double x1, const char *label_html)
{
	double y = svg_map(&p->sy, v);
	fprintf(out, "<line class=\"%s\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
		"y2=\"%.1f\"/>\n", cls, x0, y, x1, y);
	/* Above the line, or under it when that would leave the panel. */
	double ty = y - 4 < p->top + 12 ? y + 14 : y - 4;
	fprintf(out, "<text class=\"lbl\" x=\"%.1f\" y=\"%.1f\" "
		"text-anchor=\"end\">%s</text>\n", x1 - 4, ty, label_html);
}

/* The legend under a plot: swatch classes and (trusted) labels. */
struct legend_item {
	const char *style;         /* inline style of the swatch */
	const char *cls;           /* extra swatch class */
	const char *label;         /* escaped on output */
};

static void legend(FILE *out, const struct legend_item *it, size_t n)
{
	fputs("<p class=\"legend\">", out);
	for (size_t i = 0; i < n; i++) {
		if (!it[i].label)
			continue;
		fprintf(out, "<span><span class=\"sw %s\" style=\"%s\"></span>",
			it[i].cls ? it[i].cls : "", it[i].style);
		put_esc(out, it[i].label);
		fputs("</span>", out);
	}
	fputs("</p>\n", out);
}

static void readout(FILE *out)
{
	fputs("<div class=\"readout\" aria-live=\"polite\"></div>\n", out);
}

/* A Theil-Sen fit y = intercept + slope * x over [x0, x1]: its line
 * (line true), or its 95 % band (line false): the fan of the lines with
 * the interval's slopes through the fit's value at the middle. */
static void slope_fan(FILE *out, const struct panel *p, double x0, double x1,
		      const struct trend_result *tr, bool line)
{
	double xm = (x0 + x1) / 2, ym = tr->intercept + tr->slope * xm;
	double a = svg_map(&p->sx, x0), b = svg_map(&p->sx, x1);
	double m = svg_map(&p->sx, xm);
	if (line) {
		fprintf(out, "<line class=\"slope\" x1=\"%.1f\" y1=\"%.1f\" "
			"x2=\"%.1f\" y2=\"%.1f\"/>\n", a,
			svg_map(&p->sy, tr->intercept + tr->slope * x0), b,
			svg_map(&p->sy, tr->intercept + tr->slope * x1));
		return;
	}
	double lo = tr->ci_low, hi = tr->ci_high;
	if (!isfinite(lo) || !isfinite(hi))
		return;
	fprintf(out, "<polygon class=\"band\" points=\"%.1f,%.1f %.1f,%.1f "
		"%.1f,%.1f %.1f,%.1f %.1f,%.1f %.1f,%.1f\"><title>95 %% "
		"interval of the slope</title></polygon>\n",
		a, svg_map(&p->sy, ym + lo * (x0 - xm)), m, svg_map(&p->sy, ym),
		b, svg_map(&p->sy, ym + lo * (x1 - xm)),
		b, svg_map(&p->sy, ym + hi * (x1 - xm)), m, svg_map(&p->sy, ym),
		a, svg_map(&p->sy, ym + hi * (x0 - xm)));
}

/* ---- footprint over time ------------------------------------------------- */

struct level_line {
	const char *cls;
	double v;
	char label[256];           /* HTML, escaped */
};

/* Caps (--cap), the limit, the plateau: those near the data are drawn,
 * the others named above the plot. */
static size_t collect_levels(struct ctx *c, struct level_line *lv,
			     size_t max)
{
	const struct target_findings *f = c->f;
	size_t n = 0;
	char b[64], name[160];
	for (size_t i = 0; c->o && i < c->o->n_caps && n < max; i++) {
		const struct analysis_cap *cap = &c->o->caps[i];
		if (!(cap->bytes > 0))
			continue;
		lv[n].cls = "cap";
		lv[n].v = cap->bytes;
		escape_html(name, sizeof(name), cap->name ? cap->name : "cap");
		snprintf(lv[n].label, sizeof(lv[n].label), "%s%s%s %s",
			 strcmp(name, "cap") ? "cap " : "", name,
			 f->plateau.cap_name && cap->name &&
			 !strcmp(cap->name, f->plateau.cap_name) ?
			 " (plateau at it)" : "", size_s(c, b, sizeof(b),
							cap->bytes));
		n++;
	}
	double limit = f->exhaustion.found ? f->exhaustion.limit_bytes :
					     f->concern_limit;
	if (isfinite(limit) && limit > 0 && n < max) {
		lv[n].cls = "limit";
		lv[n].v = limit;
		snprintf(lv[n].label, sizeof(lv[n].label), "limit%s%s%s %s",
			 f->exhaustion.found ? " (" : "",
			 f->exhaustion.found ? f->exhaustion.limit_source : "",
			 f->exhaustion.found ? ")" : "",
			 size_s(c, b, sizeof(b), limit));
		n++;
	}
	return n;
}

static void figure_footprint(struct ctx *c)
{
	const struct target_findings *f = c->f;
	const struct series *s = c->s;
	FILE *out = c->out;
	const double h = 340;
	struct panel p = {.top = M_TOP + 14, .bottom = h - M_BOTTOM,
			  .ykind = c->bytes_kind};
	double lo = f->fp_min, hi = f->fp_max;
	struct level_line lv[16];
	size_t nlv = collect_levels(c, lv, ARRAY_SIZE(lv));
	/* Lines within a quarter of the data's span (or 10 % of its level)
	 * widen the axis; farther ones would squash the data. */
	double span = fmax(hi - lo, fabs(hi) * 0.1);
	bool shown[16] = {false};
	for (size_t i = 0; i < nlv; i++) {
		if (lv[i].v >= lo - span * 0.25 &&
		    lv[i].v <= hi + span * 0.25) {
			shown[i] = true;
			lo = fmin(lo, lv[i].v);
			hi = fmax(hi, lv[i].v);
		}
	}
	pad_range(&lo, &hi, false);
	svg_scale_set(&p.sx, c->t_lo, c->t_hi, M_LEFT, PLOT_W - M_RIGHT);
	svg_scale_set(&p.sy, lo, hi, p.bottom, p.top);

	fputs("<figure class=\"fig-footprint\">\n<figcaption>Footprint over "
	      "time (anon + swap + shmem)</figcaption>\n", out);
	svg_open(out, h, "Footprint over time", &p.sx, SVG_AXIS_TIME, NULL);
	char clip[32];
	snprintf(clip, sizeof(clip), "c%zu-fp", c->ti);
	clip_def(out, clip, &p);
	y_axis(out, &p, lo, hi, 6);
	x_axis(out, &p, SVG_AXIS_TIME, 8, true, "UTC");
	fprintf(out, "<g clip-path=\"url(#%s)\">\n", clip);
	draw_idle(c, &p);
	/* The slope over the analysed incarnation: the Theil-Sen line
	 * (trend.intercept + trend.slope * t, t in Unix seconds, as
	 * analysis.c fits it); its band under the data, the line over it. */
	bool slope = f->has_trend && isfinite(f->trend.slope);
	if (slope)
		slope_fan(out, &p, f->an_start, f->an_end, &f->trend, false);
	fputs("</g>\n", out);
	draw_restarts(c, &p, true);
	char b[64], lab[300];
	if (f->plateau.found && isfinite(f->plateau.level)) {
		snprintf(lab, sizeof(lab), "plateau %s",
			 size_s(c, b, sizeof(b), f->plateau.level));
		double x0 = svg_map(&p.sx, f->plateau.since);
		double x1 = svg_map(&p.sx, f->an_end);
		if (x1 - x0 < 60)
			x0 = x1 - 60;
		hline(out, &p, "plateau", f->plateau.level, x0, x1, lab);
	}
	double al = f->plateau.approach_level;
	if (f->plateau.approaching && isfinite(al) && al >= lo && al <= hi) {
		snprintf(lab, sizeof(lab), "levels off near %s",
			 size_s(c, b, sizeof(b), f->plateau.approach_level));
		hline(out, &p, "approach", f->plateau.approach_level,
		      svg_map(&p.sx, f->an_start), PLOT_W - M_RIGHT, lab);
	}
	size_t above = 0;
	for (size_t i = 0; i < nlv; i++) {
		if (shown[i])
			hline(out, &p, lv[i].cls, lv[i].v, M_LEFT,
			      PLOT_W - M_RIGHT, lv[i].label);
		else
			above++;
	}
	if (above) {
		fprintf(out, "<text class=\"lbl\" x=\"%.1f\" y=\"%.1f\" "
			"text-anchor=\"end\">off the scale: ", PLOT_W - M_RIGHT,
			M_TOP + 6);
		size_t k = 0;
		for (size_t i = 0; i < nlv; i++)
			if (!shown[i])
				fprintf(out, "%s%s %s", k++ ? "; " : "",
					lv[i].label,
					lv[i].v > hi ? "\u2191" : "\u2193");
		fputs("</text>\n", out);
	}
	panel_group(out, &p, clip);
	draw_over_time(c, &p, s->footprint,
		       "class=\"fp\" data-k=\"footprint\"");
	fputs("</g>\n", out);
	fprintf(out, "<g clip-path=\"url(#%s)\">\n", clip);
	if (slope)
		slope_fan(out, &p, f->an_start, f->an_end, &f->trend, true);
	draw_steps(c, &p);
	fputs("</g>\n", out);
	frame(out, &p);
	svg_close(out, h);
	struct legend_item it[] = {
		{"border-color:" C_BLUE, "sw-line", "footprint (per pixel "
		 "column: first, min, max, last sample)"},
		{"background:#00000017", NULL, c->f->idle.n ? "idle window" :
		 NULL},
		{"border-color:" C_VERMILLION, "sw-dash", f->has_trend ?
		 "slope (Theil-Sen), analysed incarnation" : NULL},
		{"background:" C_VERMILLION "33", NULL, f->has_trend ?
		 "95 % interval of the slope" : NULL},
		{"border-color:#000", "sw-dash", s->n_incs > 1 ? "restart" :
		 NULL},
		{"border-color:" C_GREEN, "sw-dash", f->plateau.found ?
		 "plateau level" : NULL},
		{"border-color:" C_GREEN, "sw-dash", f->plateau.approaching ?
		 "level it heads for" : NULL},
		{"border-color:#000", "sw-line", f->steps.n ?
		 "step (level before to after)" : NULL},
		{"border-color:" C_PURPLE, "sw-dash", c->o && c->o->n_caps ?
		 "cap (--cap)" : NULL},
		{"border-color:#000", "sw-dash", nlv > (c->o ? c->o->n_caps :
		 0) ? "limit" : NULL},
	};
	legend(out, it, ARRAY_SIZE(it));
	readout(out);
	fputs("</figure>\n", out);
}

/* ---- requests and connections on the same time axis ---------------------- */

static void minmax(const double *v, size_t n, double *lo, double *hi)
{
	*lo = INFINITY;
	*hi = -INFINITY;
	for (size_t i = 0; i < n; i++)
		if (isfinite(v[i])) {
			*lo = fmin(*lo, v[i]);
			*hi = fmax(*hi, v[i]);
		}
	if (*lo > *hi)
		*lo = *hi = NAN;
}

static void figure_work(struct ctx *c)
{
	const struct series *s = c->s;
	FILE *out = c->out;
	bool req = c->work != NULL, conn = s->connections != NULL;
	if (!req && !conn)
		return;
	const double ph_req = 130, ph_conn = 80, gap = 14;
	double h = M_TOP + (req ? ph_req : 0) + (conn ? ph_conn : 0) +
		   (req && conn ? gap : 0) + M_BOTTOM;
	struct panel pr = {0}, pc = {0};
	double top = M_TOP;
	struct svg_scale sx;
	svg_scale_set(&sx, c->t_lo, c->t_hi, M_LEFT, PLOT_W - M_RIGHT);
	fputs("<figure class=\"fig-work\">\n<figcaption>Work: requests "
	      "(cumulative, counter resets taken out) and connections"
	      "</figcaption>\n", out);
	svg_open(out, h, "Requests and connections over time", &sx,
		 SVG_AXIS_TIME, NULL);
	char clip[32];
	if (req) {
		pr.top = top;
		pr.bottom = top + ph_req;
		pr.sx = sx;
		pr.ykind = SVG_AXIS_COUNT;
		double lo = 0, hi = c->work_total > 0 ? c->work_total : 1;
		pad_range(&lo, &hi, true);
		svg_scale_set(&pr.sy, lo, hi, pr.bottom, pr.top);
		snprintf(clip, sizeof(clip), "c%zu-req", c->ti);
		clip_def(out, clip, &pr);
		y_axis(out, &pr, lo, hi, 4);
		x_axis(out, &pr, SVG_AXIS_TIME, 8, !conn, "UTC");
		fprintf(out, "<g clip-path=\"url(#%s)\">\n", clip);
		draw_idle(c, &pr);
		fputs("</g>\n", out);
		draw_restarts(c, &pr, false);
		panel_group(out, &pr, clip);
		draw_over_time(c, &pr, c->work,
			       "class=\"req\" data-k=\"requests\"");
		fputs("</g>\n", out);
		fprintf(out, "<text class=\"lbl\" x=\"%.1f\" y=\"%.1f\">"
			"requests</text>\n", M_LEFT + 6, pr.top + 14);
		frame(out, &pr);
		top = pr.bottom + gap;
	}
	if (conn) {
		pc.top = top;
		pc.bottom = top + ph_conn;
		pc.sx = sx;
		pc.ykind = SVG_AXIS_COUNT;
		double lo, hi;
		minmax(s->connections, s->n, &lo, &hi);
		lo = 0;
		if (!isfinite(hi) || hi < 1)
			hi = 1;
		pad_range(&lo, &hi, true);
		svg_scale_set(&pc.sy, lo, hi, pc.bottom, pc.top);
		snprintf(clip, sizeof(clip), "c%zu-conn", c->ti);
		clip_def(out, clip, &pc);
		y_axis(out, &pc, lo, hi, 3);
		x_axis(out, &pc, SVG_AXIS_TIME, 8, true, "UTC");
		fprintf(out, "<g clip-path=\"url(#%s)\">\n", clip);
		draw_idle(c, &pc);
		fputs("</g>\n", out);
		draw_restarts(c, &pc, false);
		panel_group(out, &pc, clip);
		draw_over_time(c, &pc, s->connections,
			       "class=\"conn\" data-k=\"connections\"");
		fputs("</g>\n", out);
		fprintf(out, "<text class=\"lbl\" x=\"%.1f\" y=\"%.1f\">"
			"connections</text>\n", M_LEFT + 6, pc.top + 14);
		frame(out, &pc);
	}
	svg_close(out, h);
	struct legend_item it[] = {
		{"border-color:" C_ORANGE, "sw-line", req ?
		 "requests, cumulative" : NULL},
		{"border-color:" C_SKY, "sw-line", conn ? "connections" :
		 NULL},
		{"background:#00000017", NULL, c->f->idle.n ? "idle window" :
		 NULL},
	};
	legend(out, it, ARRAY_SIZE(it));
	readout(out);
	fputs("</figure>\n", out);
}

/* ---- footprint against cumulative requests ------------------------------- */

static void figure_per_request(struct ctx *c)
{
	const struct series *s = c->s;
	const struct target_findings *f = c->f;
	const struct per_request_finding *pr = &f->per_request;
	FILE *out = c->out;
	if (!c->work)
		return;
	if (!(c->work_total > 0)) {
		fputs("<p class=\"muted\">Footprint against requests: the "
		      "work counter did not increase, so there is nothing to "
		      "plot.</p>\n", out);
		return;
	}
	const double h = 300;
	struct panel p = {.top = M_TOP, .bottom = h - M_BOTTOM,
			  .ykind = c->bytes_kind};
	double lo = f->fp_min, hi = f->fp_max;
	pad_range(&lo, &hi, false);
	svg_scale_set(&p.sx, 0, c->work_total, M_LEFT, PLOT_W - M_RIGHT);
	svg_scale_set(&p.sy, lo, hi, p.bottom, p.top);
	fputs("<figure class=\"fig-per-request\">\n<figcaption>Footprint "
	      "against cumulative requests</figcaption>\n", out);
	svg_open(out, h, "Footprint against cumulative requests", &p.sx,
		 SVG_AXIS_COUNT, "requests");
	char clip[32];
	snprintf(clip, sizeof(clip), "c%zu-pr", c->ti);
	clip_def(out, clip, &p);
	y_axis(out, &p, lo, hi, 6);
	x_axis(out, &p, SVG_AXIS_COUNT, 8, true, "requests");
	/* The per-request line over the analysed incarnation's requests
	 * (x as analysis_work.c fits it: the reset-free cumulative count). */
	double w0 = INFINITY, w1 = -INFINITY;
	if (pr->found && isfinite(pr->trend.slope))
		for (size_t i = 0; i < s->n; i++)
			if (inc_of(s, i) == f->analysed_inc &&
			    isfinite(c->work[i]) && isfinite(s->footprint[i])) {
				w0 = fmin(w0, c->work[i]);
				w1 = fmax(w1, c->work[i]);
			}
	bool line = w0 < w1;
	if (line) {
		fprintf(out, "<g clip-path=\"url(#%s)\">\n", clip);
		slope_fan(out, &p, w0, w1, &pr->trend, false);
		fputs("</g>\n", out);
	}
	panel_group(out, &p, clip);
	struct svg_line l;
	svg_line_begin(&l, out, &p.sx, &p.sy,
		       "class=\"fp\" data-k=\"footprint\"");
	for (size_t i = 0; i < s->n; i++) {
		if (i && inc_of(s, i) != inc_of(s, i - 1))
			svg_line_break(&l);
		svg_line_add(&l, c->work[i], s->footprint[i]);
	}
	svg_line_end(&l);
	fputs("</g>\n", out);
	if (line) {
		fprintf(out, "<g clip-path=\"url(#%s)\">\n", clip);
		slope_fan(out, &p, w0, w1, &pr->trend, true);
		fputs("</g>\n", out);
	}
	frame(out, &p);
	svg_close(out, h);
	struct legend_item it[] = {
		{"border-color:" C_BLUE, "sw-line", "footprint (in time order; "
		 "vertical runs: memory moved while no request completed)"},
		{"border-color:" C_VERMILLION, "sw-dash", pr->found ?
		 "per-request slope, analysed incarnation" : NULL},
		{"background:" C_VERMILLION "33", NULL, pr->found ?
		 "95 % interval" : NULL},
	};
	legend(out, it, ARRAY_SIZE(it));
	readout(out);
	fputs("</figure>\n", out);
}

/* ---- components stacked over time ---------------------------------------- */

static double layer_value(const struct series *s, size_t k, size_t i)
{
	const double *v = s->comp[stack_layers[k].comp];
	return v && isfinite(v[i]) && v[i] > 0 ? v[i] : 0;
}

static bool layer_known(const struct series *s, size_t i)
{
	for (size_t k = 0; k < N_LAYERS; k++) {
		const double *v = s->comp[stack_layers[k].comp];
		if (v && isfinite(v[i]))
			return true;
	}
	return false;
}

/* Per pixel column the sample with the largest total is drawn (peaks
 * survive; each band is that sample's component). Bands break where a
 * line would. */
static void figure_components(struct ctx *c)
{
	const struct series *s = c->s;
	FILE *out = c->out;
	bool any = false;
	for (size_t k = 0; k < N_LAYERS; k++)
		any = any || s->comp[stack_layers[k].comp];
	if (!any) {
		fputs("<p class=\"muted\">Components: not recorded in this "
		      "source.</p>\n", out);
		return;
	}
	const double h = 300;
	struct panel p = {.top = M_TOP, .bottom = h - M_BOTTOM,
			  .ykind = c->bytes_kind};
	svg_scale_set(&p.sx, c->t_lo, c->t_hi, M_LEFT, PLOT_W - M_RIGHT);
	/* Chosen samples: at most one per column. */
	size_t cols = (size_t)(PLOT_W - M_RIGHT - M_LEFT) + 4;
	size_t *pick = xmalloc(cols * sizeof(size_t));
	bool *brk = xmalloc(cols * sizeof(bool));
	size_t np = 0;
	long col = LONG_MIN;
	double best = -1, hi = 0;
	bool pending = false;
	for (size_t i = 0; i < s->n; i++) {
		if (i && (inc_of(s, i) != inc_of(s, i - 1) ||
			  s->t[i] - s->t[i - 1] > c->gap_s))
			pending = true;
		if (!isfinite(s->t[i]) || !layer_known(s, i)) {
			pending = true;
			continue;
		}
		double tot = 0;
		for (size_t k = 0; k < N_LAYERS; k++)
			tot += layer_value(s, k, i);
		long cc = (long)floor(svg_map(&p.sx, s->t[i]));
		if (np && cc == col) {
			if (tot > best) {
				best = tot;
				pick[np - 1] = i;
			}
			pending = false;
			continue;
		}
		if (np == cols)
			break;  /* cannot happen: columns are bounded */
		brk[np] = np && pending && cc > col + 1;
		pending = false;
		pick[np++] = i;
		col = cc;
		best = tot;
	}
	for (size_t j = 0; j < np; j++) {
		double tot = 0;
		for (size_t k = 0; k < N_LAYERS; k++)
			tot += layer_value(s, k, pick[j]);
		hi = fmax(hi, tot);
	}
	double lo = 0;
	pad_range(&lo, &hi, true);
	svg_scale_set(&p.sy, lo, hi, p.bottom, p.top);
	fputs("<figure class=\"fig-components\">\n<figcaption>Components "
	      "stacked over time</figcaption>\n", out);
	svg_open(out, h, "Memory components stacked over time", &p.sx,
		 SVG_AXIS_TIME, NULL);
	char clip[32];
	snprintf(clip, sizeof(clip), "c%zu-comp", c->ti);
	clip_def(out, clip, &p);
	y_axis(out, &p, lo, hi, 6);
	x_axis(out, &p, SVG_AXIS_TIME, 8, true, "UTC");
	fprintf(out, "<g clip-path=\"url(#%s)\">\n", clip);
	/* Each run of columns without a break: one polygon per layer,
	 * upper edge left to right, lower edge back. */
	for (size_t a = 0; a < np;) {
		size_t b = a + 1;
		while (b < np && !brk[b])
			b++;
		for (size_t k = 0; k < N_LAYERS; k++) {
			if (!s->comp[stack_layers[k].comp])
				continue;
			fprintf(out, "<polygon fill=\"%s\" "
				"fill-opacity=\"0.85\" points=\"",
				stack_layers[k].colour);
			for (int pass = 0; pass < 2; pass++) {
				for (size_t jj = 0; jj < b - a; jj++) {
					size_t j = pass ? b - 1 - jj : a + jj;
					size_t i = pick[j];
					double cum = 0;
					size_t top = pass ? k : k + 1;
					for (size_t q = 0; q < top; q++)
						cum += layer_value(s, q, i);
					double x = svg_map(&p.sx, s->t[i]);
					if (b - a == 1)
						x += pass ? -0.5 : 0.5;
					fprintf(out, "%s%.1f,%.1f",
						pass || jj ? " " : "", x,
						svg_map(&p.sy, cum));
				}
			}
			fputs("\"/>\n", out);
		}
		a = b;
	}
	fputs("</g>\n", out);
	draw_restarts(c, &p, false);
	/* The total as a line, for the readout. */
	panel_group(out, &p, clip);
	struct svg_line l;
	svg_line_begin(&l, out, &p.sx, &p.sy,
		       "class=\"total\" data-k=\"total\"");
	for (size_t j = 0; j < np; j++) {
		if (brk[j])
			svg_line_break(&l);
		double tot = 0;
		for (size_t k = 0; k < N_LAYERS; k++)
			tot += layer_value(s, k, pick[j]);
		svg_line_add(&l, s->t[pick[j]], tot);
	}
	svg_line_end(&l);
	fputs("</g>\n", out);
	frame(out, &p);
	svg_close(out, h);
	struct legend_item it[N_LAYERS];
	char styles[N_LAYERS][48];
	for (size_t k = 0; k < N_LAYERS; k++) {
		snprintf(styles[k], sizeof(styles[k]), "background:%s",
			 stack_layers[k].colour);
		it[k].style = styles[k];
		it[k].cls = NULL;
		it[k].label = s->comp[stack_layers[k].comp] ?
			      stack_layers[k].label : NULL;
	}
	legend(out, it, N_LAYERS);
	fputs("<p class=\"muted legend\">Per pixel column, the sample with "
	      "the largest total is drawn.</p>\n", out);
	readout(out);
	fputs("</figure>\n", out);
	free(pick);
	free(brk);
}

/* ---- gauges -------------------------------------------------------------- */

static void figure_gauges(struct ctx *c)
{
	const struct series *s = c->s;
	FILE *out = c->out;
	size_t ng = s->n_gauges < GAUGES_MAX ? s->n_gauges : GAUGES_MAX;
	if (!ng)
		return;
	const double ph = 90, gap = 12;
	double h = M_TOP + ng * ph + (ng - 1) * gap + M_BOTTOM;
	struct svg_scale sx;
	svg_scale_set(&sx, c->t_lo, c->t_hi, M_LEFT, PLOT_W - M_RIGHT);
	fputs("<figure class=\"fig-gauges\">\n<figcaption>Gauges (as "
	      "recorded; each on its own scale; bytes where the name says "
	      "so)</figcaption>\n", out);
	svg_open(out, h, "Gauges over time", &sx, SVG_AXIS_TIME, NULL);
	double top = M_TOP;
	for (size_t g = 0; g < ng; g++) {
		const struct series_gauge *sg = &s->gauges[g];
		/* Bytes by the attribution's name rule: a bytes axis. */
		bool bytes = attribution_gauge_is_bytes(sg->name);
		struct panel p = {.top = top, .bottom = top + ph, .sx = sx,
				  .ykind = bytes ? c->bytes_kind :
					   SVG_AXIS_NUMBER};
		double lo, hi;
		minmax(sg->v, s->n, &lo, &hi);
		pad_range(&lo, &hi, false);
		svg_scale_set(&p.sy, lo, hi, p.bottom, p.top);
		char clip[40];
		snprintf(clip, sizeof(clip), "c%zu-g%zu", c->ti, g);
		clip_def(out, clip, &p);
		y_axis(out, &p, lo, hi, 3);
		x_axis(out, &p, SVG_AXIS_TIME, 8, g + 1 == ng, "UTC");
		draw_restarts(c, &p, false);
		panel_group(out, &p, clip);
		/* data-k carries the (escaped) name for the readout. */
		char attrs[600], name[400];
		escape_html(name, sizeof(name), sg->name);
		snprintf(attrs, sizeof(attrs), "class=\"gauge\" data-k=\"%s\"",
			 name);
		draw_over_time(c, &p, sg->v, attrs);
		fputs("</g>\n", out);
		fprintf(out, "<text class=\"lbl\" x=\"%.1f\" y=\"%.1f\">%s"
			"</text>\n", M_LEFT + 6, p.top + 14, name);
		frame(out, &p);
		top += ph + gap;
	}
	svg_close(out, h);
	if (s->n_gauges > ng)
		fprintf(out, "<p class=\"muted\">%zu more gauges are not "
			"plotted (--json has the findings).</p>\n",
			s->n_gauges - ng);
	readout(out);
	fputs("</figure>\n", out);
}

/* ---- tables -------------------------------------------------------------- */

static void verdict_block(struct ctx *c)
{
	const struct target_findings *f = c->f;
	FILE *out = c->out;
	fputs("<ul class=\"reasons\">\n", out);
	for (size_t i = 0; i < f->reasons.n; i++) {
		char *r = render_reason_string(f, &f->reasons.r[i]);
		fputs("<li>", out);
		put_esc(out, r);
		fputs("</li>\n", out);
		free(r);
	}
	fputs("</ul>\n", out);
	char *settle = render_settle_string(f);
	if (settle) {
		fputs("<p class=\"settle\">To settle it: ", out);
		put_esc(out, settle);
		fputs("</p>\n", out);
		free(settle);
	}
}

static void figures_table(struct ctx *c)
{
	const struct target_findings *f = c->f;
	FILE *out = c->out;
	char v[400], b1[64], b2[64], b3[64], b4[64], b5[64];
	fputs("<table class=\"kv\">\n", out);
	if (f->samples) {
		snprintf(v, sizeof(v), "%s to %s (%s), %zu samples, %zu "
			 "incarnation%s", time_s(b1, sizeof(b1), f->start),
			 time_s(b2, sizeof(b2), f->end),
			 dur_s(b3, sizeof(b3), f->span_s), f->samples,
			 f->n_incarnations, f->n_incarnations == 1 ? "" : "s");
		kv_row(out, "window", v);
	} else {
		kv_row(out, "window", "no samples");
	}
	snprintf(v, sizeof(v), "first %s, last %s, min %s, max %s",
		 size_s(c, b1, sizeof(b1), f->fp_first),
		 size_s(c, b2, sizeof(b2), f->fp_last),
		 size_s(c, b3, sizeof(b3), f->fp_min),
		 size_s(c, b4, sizeof(b4), f->fp_max));
	kv_row(out, "footprint", v);
	snprintf(v, sizeof(v), "%s (%s)", size_s(c, b1, sizeof(b1),
						 f->resolution),
		 resolution_basis_text(f) ? resolution_basis_text(f) :
		 "inferred from the readings");
	kv_row(out, "resolution", v);
	if (f->has_trend) {
		snprintf(v, sizeof(v), "%s (95 %% interval %s to %s)%s, over "
			 "%s from %s",
			 slope_s(c, b1, sizeof(b1), f->slope.estimate),
			 slope_s(c, b2, sizeof(b2), f->slope.low),
			 slope_s(c, b3, sizeof(b3), f->slope.high),
			 f->trend.bucketed ? " [bucket medians]" : "",
			 dur_s(b4, sizeof(b4), f->an_span_s),
			 time_s(b5, sizeof(b5), f->an_start));
		kv_row(out, "slope", v);
		snprintf(v, sizeof(v), "p = %s (autocorrelation-aware: "
			 "interval x%.2f wider than for independent "
			 "readings)%s", p_s(b1, sizeof(b1), f->slope.p),
			 sqrt(f->trend.variance_inflation),
			 f->trend_on_floors ? "; on the cycles' floors" : "");
		kv_row(out, "trend test", v);
		kv_row(out, "detectable",
		       slope_s(c, b1, sizeof(b1), f->detectable_bph));
	}
	snprintf(v, sizeof(v), "%s (%s)", slope_s(c, b1, sizeof(b1),
						  f->concern_bph),
		 f->concern_source);
	kv_row(out, "slope of concern", v);
	if (f->has_trend) {
		snprintf(v, sizeof(v), "%s for the %s slope; %s for the slope "
			 "of concern", dur_s(b1, sizeof(b1),
					     f->min_observation_s),
			 f->concern_is_suspect ? "suspected" : "measured",
			 dur_s(b2, sizeof(b2), f->needed_span_s));
		kv_row(out, "minimum observation", v);
	}
	if (f->plateau.found) {
		snprintf(v, sizeof(v), "%s since %s", size_s(c, b1, sizeof(b1),
							    f->plateau.level),
			 time_s(b2, sizeof(b2), f->plateau.since));
		if (f->plateau.cap_name)
			snprintf(v + strlen(v), sizeof(v) - strlen(v),
				 ", at the %s (%s)", f->plateau.cap_name,
				 size_s(c, b3, sizeof(b3),
					f->plateau.cap_bytes));
		kv_row(out, "plateau", v);
	}
	if (f->plateau.approaching) {
		snprintf(v, sizeof(v), "slowing from %s to %s: levels off near "
			 "%s", slope_s(c, b1, sizeof(b1),
				       f->plateau.approach_early_bph),
			 slope_s(c, b2, sizeof(b2),
				 f->plateau.approach_late_bph),
			 size_s(c, b3, sizeof(b3), f->plateau.approach_level));
		kv_row(out, "approach", v);
	}
	/* Components at the last sample. */
	v[0] = '\0';
	for (int k = 0; k < COMP_COUNT; k++) {
		const double *a = c->s->comp[k];
		if (!a)
			continue;
		for (size_t i = c->s->n; i-- > 0;) {
			if (isnan(a[i]))
				continue;
			size_t len = strlen(v);
			snprintf(v + len, sizeof(v) - len, "%s%s %s",
				 len ? ", " : "", series_component_names[k],
				 size_s(c, b1, sizeof(b1), a[i]));
			break;
		}
	}
	if (v[0])
		kv_row(out, "components (last)", v);
	fputs("</table>\n", out);
}

static void per_request_table(struct ctx *c)
{
	const struct per_request_finding *pr = &c->f->per_request;
	FILE *out = c->out;
	char v[400], b1[64], b2[64], b3[64], b4[64];
	if (!pr->recorded)
		return;
	fputs("<h3>Per request</h3>\n<table class=\"kv\">\n", out);
	if (!pr->known) {
		kv_row(out, "requests", "no readings in the window");
		fputs("</table>\n", out);
		return;
	}
	snprintf(v, sizeof(v), "%s in the analysed window (%s/h)",
		 units_format_count(b1, sizeof(b1), pr->requests),
		 units_format_count(b2, sizeof(b2), pr->rate_per_h));
	kv_row(out, "requests", v);
	if (pr->found) {
		snprintf(v, sizeof(v), "%s (95 %% interval %s to %s), p = %s",
			 per_req_s(c, b1, sizeof(b1), pr->slope.estimate),
			 per_req_s(c, b2, sizeof(b2), pr->slope.low),
			 per_req_s(c, b3, sizeof(b3), pr->slope.high),
			 p_s(b4, sizeof(b4), pr->slope.p));
		kv_row(out, "per-request slope", v);
		kv_row(out, "detectable",
		       per_req_s(c, b1, sizeof(b1), pr->detectable));
	}
	if (isfinite(pr->concern)) {
		snprintf(v, sizeof(v), "%s%s", per_req_s(c, b1, sizeof(b1),
							 pr->concern),
			 pr->concern_is_suspect ? " (--suspect)" :
			 " (time slope of concern at the observed rate)");
		kv_row(out, "slope of concern", v);
	}
	if (isfinite(pr->needed_requests)) {
		snprintf(v, sizeof(v), "%s requests in all",
			 units_format_count(b1, sizeof(b1),
					    pr->needed_requests));
		kv_row(out, "needed to see it", v);
	}
	fputs("</table>\n", out);
}

static void idle_tables(struct ctx *c)
{
	const struct target_findings *f = c->f;
	const struct idle_findings *id = &f->idle;
	FILE *out = c->out;
	char b1[64], b2[64], b3[64], b4[64], b5[64], b6[64];
	if (!id->work_known)
		return;
	fputs("<h3>Idle windows</h3>\n", out);
	if (!id->n) {
		fprintf(out, "<p>No idle window of at least %s.</p>\n",
			dur_s(b1, sizeof(b1), f->idle_min_s));
	} else {
		fprintf(out, "<p>%zu window%s, %s in all, longest %s; %s "
			"(largest decline %s).</p>\n", id->n,
			id->n == 1 ? "" : "s",
			dur_s(b1, sizeof(b1), id->idle_s),
			dur_s(b2, sizeof(b2), id->longest_s),
			id->released ? "memory was released" :
			"nothing was released",
			size_s(c, b3, sizeof(b3), id->largest_decline));
		fputs("<table class=\"idle-windows\">\n<thead><tr><th>start"
		      "</th><th>end</th><th class=\"n\">duration</th>"
		      "<th class=\"n\">footprint at start</th><th class=\"n\">"
		      "at end</th><th class=\"n\">decline</th></tr></thead>"
		      "\n<tbody>\n", out);
		for (size_t i = 0; i < id->n && i < TABLE_ROWS_MAX; i++) {
			const struct idle_window *w = &id->windows[i];
			fprintf(out, "<tr><td>%s</td><td>%s</td>"
				"<td class=\"n\">%s</td><td class=\"n\">%s</td>"
				"<td class=\"n\">%s</td><td class=\"n\">%s</td>"
				"</tr>\n",
				time_s(b1, sizeof(b1), w->start),
				time_s(b2, sizeof(b2), w->end),
				dur_s(b3, sizeof(b3), w->end - w->start),
				size_s(c, b4, sizeof(b4), w->fp_start),
				size_s(c, b5, sizeof(b5), w->fp_end),
				size_s(c, b6, sizeof(b6), w->decline));
		}
		fputs("</tbody></table>\n", out);
		if (id->n > TABLE_ROWS_MAX)
			fprintf(out, "<p class=\"muted\">... %zu more (--json "
				"lists them all).</p>\n",
				id->n - TABLE_ROWS_MAX);
	}
	fputs("<h3>Where the growth happened</h3>\n<table class=\"growth\">\n"
	      "<thead><tr><th></th><th class=\"n\">footprint change</th>"
	      "<th class=\"n\">time</th></tr></thead>\n<tbody>\n", out);
	fprintf(out, "<tr><th>while requests ran</th><td class=\"n\">%s</td>"
		"<td class=\"n\">%s</td></tr>\n",
		size_s(c, b1, sizeof(b1), id->growth_active),
		dur_s(b2, sizeof(b2), id->active_s));
	fprintf(out, "<tr><th>in idle windows</th><td class=\"n\">%s</td>"
		"<td class=\"n\">%s</td></tr>\n",
		size_s(c, b1, sizeof(b1), id->growth_idle),
		dur_s(b2, sizeof(b2), id->idle_s));
	fprintf(out, "<tr><th>start-up</th><td class=\"n\">%s</td>"
		"<td class=\"n\">%s</td></tr>\n",
		size_s(c, b1, sizeof(b1), id->growth_warmup),
		dur_s(b2, sizeof(b2), id->warmup_s));
	fprintf(out, "<tr><th>net</th><td class=\"n\">%s</td><td></td></tr>\n"
		"</tbody></table>\n", size_s(c, b1, sizeof(b1),
					     id->growth_net));
}

static void exhaustion_table(struct ctx *c)
{
	const struct exhaustion_finding *e = &c->f->exhaustion;
	FILE *out = c->out;
	char v[300], b1[64], b2[64], b3[64];
	if (!e->found)
		return;
	fputs("<h3>Exhaustion</h3>\n<table class=\"kv\">\n", out);
	snprintf(v, sizeof(v), "%s (%s)", size_s(c, b1, sizeof(b1),
						 e->limit_bytes),
		 e->limit_source ? e->limit_source : "?");
	kv_row(out, "limit", v);
	snprintf(v, sizeof(v), "%s at the measured slope (range %s to %s)",
		 dur_s(b1, sizeof(b1), e->eta_s),
		 dur_s(b2, sizeof(b2), e->eta_low_s),
		 dur_s(b3, sizeof(b3), e->eta_high_s));
	kv_row(out, "reached in", v);
	if (isfinite(e->requests_left)) {
		snprintf(v, sizeof(v), "%s (range %s to %s)",
			 units_format_count(b1, sizeof(b1), e->requests_left),
			 units_format_count(b2, sizeof(b2),
					    e->requests_left_low),
			 isinf(e->requests_left_high) ? "never" :
			 units_format_count(b3, sizeof(b3),
					    e->requests_left_high));
		kv_row(out, "requests left", v);
	}
	fputs("</table>\n", out);
}

static void incarnations_table(struct ctx *c)
{
	const struct series *s = c->s;
	const struct target_findings *f = c->f;
	FILE *out = c->out;
	if (!s->n_incs)
		return;
	char b1[64], b2[64], b3[64], b4[64], b5[64];
	fputs("<h3>Incarnations</h3>\n<table class=\"incarnations\">\n"
	      "<thead><tr><th class=\"n\">#</th><th class=\"n\">pid</th>"
	      "<th>first sample</th><th class=\"n\">lived</th>"
	      "<th class=\"n\">samples</th><th class=\"n\">footprint first"
	      "</th><th class=\"n\">last</th><th class=\"n\">slope</th>"
	      "<th>process</th></tr></thead>\n<tbody>\n", out);
	for (size_t k = 0; k < s->n_incs && k < TABLE_ROWS_MAX; k++) {
		const struct incarnation *in = &s->incs[k];
		const struct incarnation_summary *is =
			f->per_inc && k < f->n_incarnations ? &f->per_inc[k] :
			NULL;
		bool seen = is && is->samples;
		fprintf(out, "<tr><td class=\"n\">%zu%s</td><td class=\"n\">",
			k + 1, k == f->analysed_inc ? " (slope)" : "");
		if (in->pid >= 0)
			fprintf(out, "%lld", (long long)in->pid);
		fprintf(out, "</td><td>%s</td><td class=\"n\">%s</td>"
			"<td class=\"n\">%zu</td><td class=\"n\">%s</td>"
			"<td class=\"n\">%s</td><td class=\"n\">%s</td><td>",
			seen ? time_s(b1, sizeof(b1), is->start) : "",
			seen ? dur_s(b2, sizeof(b2), is->end - is->start) : "",
			is ? is->samples : 0,
			seen ? size_s(c, b3, sizeof(b3), is->fp_first) : "",
			seen ? size_s(c, b4, sizeof(b4), is->fp_last) : "",
			seen && is->has_slope ?
			slope_s(c, b5, sizeof(b5), is->slope.estimate) : "");
		if (in->comm) {
			fputs("<code class=\"comm\">", out);
			put_esc(out, in->comm);
			fputs("</code> ", out);
		}
		if (in->cmdline && *in->cmdline) {
			fputs("<code class=\"cmdline\">", out);
			put_esc(out, in->cmdline);
			fputs("</code>", out);
		}
		fputs("</td></tr>\n", out);
	}
	fputs("</tbody></table>\n", out);
	if (s->n_incs > TABLE_ROWS_MAX)
		fprintf(out, "<p class=\"muted\">... %zu more incarnations "
			"(--json lists them all).</p>\n",
			s->n_incs - TABLE_ROWS_MAX);
}

/* What each restart gave back (restarts.h). */
static void restarts_table(struct ctx *c)
{
	const struct restart_findings *rf = &c->f->restarts;
	FILE *out = c->out;
	char b1[64], b2[64], b3[64], b4[64], b5[64];
	if (!rf->n)
		return;
	fprintf(out, "<h3>Restarts</h3>\n<p>%zu restart%s; recovered in all: "
		"%s.</p>\n<table class=\"restarts\">\n<thead><tr><th>time</th>"
		"<th class=\"n\">pid</th><th class=\"n\">down</th>"
		"<th class=\"n\">before</th>"
		"<th class=\"n\">after (settled)</th>"
		"<th>after: read at</th><th class=\"n\">recovered</th></tr>"
		"</thead>\n<tbody>\n", rf->n, rf->n == 1 ? "" : "s",
		size_s(c, b1, sizeof(b1), rf->recovered_total));
	for (size_t i = 0; i < rf->n && i < TABLE_ROWS_MAX; i++) {
		const struct restart *r = &rf->r[i];
		fprintf(out, "<tr><td>%s</td><td class=\"n\">", time_s(b1,
			sizeof(b1), r->time));
		if (r->old_pid >= 0)
			fprintf(out, "%lld", (long long)r->old_pid);
		fputs(" \u2192 ", out);
		if (r->new_pid >= 0)
			fprintf(out, "%lld", (long long)r->new_pid);
		fprintf(out, "</td><td class=\"n\">%s</td>"
			"<td class=\"n\">%s</td><td class=\"n\">%s</td><td>",
			dur_s(b2, sizeof(b2), r->gap_s),
			size_s(c, b3, sizeof(b3), r->before),
			size_s(c, b4, sizeof(b4), r->after));
		put_esc(out, r->floor_rule);
		if (isfinite(r->after_time))
			fprintf(out, ", %s", time_s(b1, sizeof(b1),
						    r->after_time));
		fprintf(out, "</td><td class=\"n\">%s</td></tr>\n",
			size_s(c, b5, sizeof(b5), r->recovered));
	}
	fputs("</tbody></table>\n", out);
	if (rf->n > TABLE_ROWS_MAX)
		fprintf(out, "<p class=\"muted\">... %zu more (--json lists "
			"them all).</p>\n", rf->n - TABLE_ROWS_MAX);
}

/* Step changes of the analysed incarnation (steps.h). */
static void steps_table(struct ctx *c)
{
	const struct step_findings *sf = &c->f->steps;
	FILE *out = c->out;
	char b1[64], b2[64], b3[64], b4[64];
	if (!sf->n)
		return;
	fprintf(out, "<h3>Steps</h3>\n<p>%zu step change%s in the analysed "
		"incarnation%s.</p>\n<table class=\"steps\">\n<thead><tr>"
		"<th>time</th><th class=\"n\">before</th><th class=\"n\">after"
		"</th><th class=\"n\">change</th></tr></thead>\n<tbody>\n",
		sf->n_found, sf->n_found == 1 ? "" : "s",
		sf->n_found > sf->n ? " (the largest are listed)" : "");
	for (size_t i = 0; i < sf->n && i < TABLE_ROWS_MAX; i++) {
		const struct step *st = &sf->steps[i];
		fprintf(out, "<tr><td>%s</td><td class=\"n\">%s</td>"
			"<td class=\"n\">%s</td><td class=\"n\">%s%s</td>"
			"</tr>\n",
			time_s(b1, sizeof(b1), st->time),
			size_s(c, b2, sizeof(b2), st->before),
			size_s(c, b3, sizeof(b3), st->after),
			st->change > 0 ? "+" : "",
			size_s(c, b4, sizeof(b4), st->change));
	}
	fputs("</tbody></table>\n", out);
}

/* Footprint growth against the gauges' growth (attribution.h). */
static void attribution_table(struct ctx *c)
{
	const struct attribution_finding *at = &c->f->attribution;
	FILE *out = c->out;
	char b1[64], b2[64], b3[64], b4[64], b5[64];
	if (!at->found)
		return;
	fprintf(out, "<h3>Attribution</h3>\n<p>Footprint growth %s, from %s "
		"to %s (%s to %s).</p>\n<table class=\"attribution\">\n"
		"<thead><tr><th>gauge</th><th class=\"n\">growth</th>"
		"<th>counted</th></tr></thead>\n<tbody>\n",
		size_s(c, b1, sizeof(b1), at->growth),
		size_s(c, b2, sizeof(b2), at->start_level),
		size_s(c, b3, sizeof(b3), at->end_level),
		time_s(b4, sizeof(b4), at->start),
		time_s(b5, sizeof(b5), at->end));
	for (size_t i = 0; i < at->n && i < TABLE_ROWS_MAX; i++) {
		const struct attribution_item *it = &at->items[i];
		fputs("<tr><td><code class=\"gauge\">", out);
		put_esc(out, it->name);
		fprintf(out, "</code></td><td class=\"n\">%s</td><td>",
			size_s(c, b1, sizeof(b1), it->explained));
		put_esc(out, it->counted ? "yes" : it->why_not ? it->why_not :
			"no");
		fputs("</td></tr>\n", out);
	}
	fprintf(out, "<tr><th>explained</th><td class=\"n\">%s</td><td></td>"
		"</tr>\n<tr><th>unattributed</th><td class=\"n\">%s</td>"
		"<td></td></tr>\n</tbody></table>\n",
		size_s(c, b1, sizeof(b1), at->explained_total),
		size_s(c, b2, sizeof(b2), at->unattributed));
}

/* Device-local GPU memory: the component's figures, each region the
 * drivers reported, each device's totals. */
static void gpu_table(struct ctx *c)
{
	const struct gpu_finding *g = &c->f->gpu;
	const struct series *s = c->s;
	FILE *out = c->out;
	char b1[64], b2[64], b3[64], b4[64];
	if (!g->recorded)
		return;
	fputs("<h3>GPU memory</h3>\n<p>Device-local memory (VRAM) is part of "
	      "the footprint. Host regions (GTT, system) are already counted "
	      "in anon and shmem and are not added again.</p>\n", out);
	if (g->samples) {
		fprintf(out, "<table class=\"kv\">\n");
		char v[300];
		snprintf(v, sizeof(v), "first %s, last %s, max %s",
			 size_s(c, b1, sizeof(b1), g->first),
			 size_s(c, b2, sizeof(b2), g->last),
			 size_s(c, b3, sizeof(b3), g->max));
		kv_row(out, "device-local", v);
		if (isfinite(g->share_last)) {
			snprintf(v, sizeof(v), "%.1f %%", 100 * g->share_last);
			kv_row(out, "share of the footprint", v);
		}
		snprintf(v, sizeof(v), "%s of the footprint's %s",
			 size_s(c, b1, sizeof(b1), g->growth),
			 size_s(c, b2, sizeof(b2), g->footprint_growth));
		kv_row(out, "change", v);
		if (g->has_trend) {
			snprintf(v, sizeof(v), "%s (95 %% interval %s to %s), "
				 "p = %s", slope_s(c, b1, sizeof(b1),
						   g->slope.estimate),
				 slope_s(c, b2, sizeof(b2), g->slope.low),
				 slope_s(c, b3, sizeof(b3), g->slope.high),
				 p_s(b4, sizeof(b4), g->slope.p));
			kv_row(out, "GPU slope", v);
		}
		fputs("</table>\n", out);
	}
	if (s->n_gpu_regions) {
		fputs("<table class=\"gpu\">\n<thead><tr><th>source</th>"
		      "<th>region</th><th>kind</th><th class=\"n\">first</th>"
		      "<th class=\"n\">last</th></tr></thead>\n<tbody>\n",
		      out);
		for (size_t i = 0; i < s->n_gpu_regions; i++) {
			const struct series_gpu_region *r = &s->gpu_regions[i];
			fputs("<tr><td>", out);
			put_esc(out, r->source);
			fputs("</td><td><code>", out);
			put_esc(out, r->name);
			fputs("</code></td><td>", out);
			put_esc(out, r->kind);
			fprintf(out, "</td><td class=\"n\">%s</td><td "
				"class=\"n\">%s</td></tr>\n",
				size_s(c, b1, sizeof(b1), r->first),
				size_s(c, b2, sizeof(b2), r->last));
		}
		fputs("</tbody></table>\n", out);
	}
	for (size_t i = 0; i < c->d->n_gpu_devices; i++) {
		const struct dataset_gpu_device *dv = &c->d->gpu_devices[i];
		fprintf(out, "<p>GPU %u (", dv->index);
		put_esc(out, dv->source);
		fprintf(out, "): %s used of %s, all processes.</p>\n",
			size_s(c, b1, sizeof(b1), dv->used),
			size_s(c, b2, sizeof(b2), dv->total));
	}
}

/* ---- page ---------------------------------------------------------------- */

static void target_section(struct ctx *c)
{
	const struct series *s = c->s;
	const struct target_findings *f = c->f;
	FILE *out = c->out;
	const char *vn = verdict_name(f->verdict);
	fprintf(out, "<section class=\"target\" id=\"t%zu\" "
		"data-verdict=\"%s\">\n<h2>", c->ti, vn);
	put_esc(out, s->name);
	fprintf(out, " <span class=\"verdict v-%s\">%s", vn, vn);
	if (f->plateau.found && f->plateau.cap_name) {
		fputs(" at the ", out);
		put_esc(out, f->plateau.cap_name);
	}
	fputs("</span></h2>\n", out);
	verdict_block(c);
	figures_table(c);
	if (s->n) {
		figure_footprint(c);
		figure_work(c);
		figure_per_request(c);
		figure_components(c);
		figure_gauges(c);
	}
	fputs("<div class=\"findings\">\n", out);
	per_request_table(c);
	idle_tables(c);
	exhaustion_table(c);
	restarts_table(c);
	steps_table(c);
	attribution_table(c);
	gpu_table(c);
	incarnations_table(c);
	fputs("</div>\n</section>\n", out);
}

static void setup_ctx(struct ctx *c, const struct target_findings *f)
{
	const struct series *s = f->series;
	c->f = f;
	c->s = s;
	c->decimal = f->decimal_units;
	c->bytes_kind = c->decimal ? SVG_AXIS_BYTES_DECIMAL : SVG_AXIS_BYTES;
	c->work = NULL;
	c->work_total = 0;
	if (s->requests && s->n) {
		c->work = xmalloc(s->n * sizeof(double));
		c->work_total = idle_work_increase(s->requests, s->n,
						      c->work);
	}
	c->gap_s = gap_threshold(s);
	c->t_lo = INFINITY;
	c->t_hi = -INFINITY;
	for (size_t i = 0; i < s->n; i++)
		if (isfinite(s->t[i])) {
			c->t_lo = fmin(c->t_lo, s->t[i]);
			c->t_hi = fmax(c->t_hi, s->t[i]);
		}
	if (!(c->t_hi > c->t_lo)) {
		double t = isfinite(c->t_lo) ? c->t_lo : 0;
		c->t_lo = t - 30;
		c->t_hi = t + 30;
	}
}

int render_html(FILE *out, const struct dataset *d,
		const struct target_findings *f, size_t n,
		const struct render_html_options *o)
{
	char h1[80], h2[80];
	csp_hash(h1, sizeof(h1), head_script);
	csp_hash(h2, sizeof(h2), body_script);
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n"
	      "<meta charset=\"utf-8\">\n", out);
	/* 'unsafe-inline' only for browsers without CSP hashes: where the
	 * hashes are understood, inline code other than these two scripts
	 * (an injected tag, an event handler attribute) never runs. */
	fprintf(out, "<meta http-equiv=\"Content-Security-Policy\" "
		"content=\"default-src 'none'; script-src 'unsafe-inline' "
		"%s %s; style-src 'unsafe-inline'; img-src data:; "
		"base-uri 'none'; form-action 'none'\">\n", h1, h2);
	fprintf(out, "<script>%s</script>\n", head_script);
	fputs("<meta name=\"viewport\" content=\"width=device-width, "
	      "initial-scale=1\">\n<meta name=\"generator\" content=\"memtrend "
	      MEMTREND_VERSION "\">\n<title>memtrend report: ", out);
	put_esc(out, d->source);
	fprintf(out, "</title>\n<style>\n%s</style>\n</head>\n<body>\n"
		"<header>\n<h1>memtrend report</h1>\n<p class=\"muted\">"
		"Source <code class=\"source\">", page_style);
	put_esc(out, d->source);
	fprintf(out, "</code>: %zu target%s. Times are UTC. Generated by "
		"memtrend " MEMTREND_VERSION ".</p>\n", n, n == 1 ? "" : "s");
	if (n > 1) {
		fputs("<nav><ul>\n", out);
		for (size_t i = 0; i < n; i++) {
			const char *vn = verdict_name(f[i].verdict);
			fprintf(out, "<li><a href=\"#t%zu\">", i);
			put_esc(out, f[i].series->name);
			fprintf(out, "</a> <span class=\"verdict v-%s\">%s"
				"</span></li>\n", vn, vn);
		}
		fputs("</ul></nav>\n", out);
	}
	fputs("</header>\n<main>\n", out);
	struct ctx c = {.out = out, .d = d, .o = o};
	for (size_t i = 0; i < n; i++) {
		c.ti = i;
		setup_ctx(&c, &f[i]);
		target_section(&c);
		free(c.work);
		c.work = NULL;
	}
	fputs("</main>\n<footer>\n", out);
	if (d->n_notes) {
		fputs("<h3>Notes recorded with the data</h3>\n<ul class=\""
		      "notes\">\n", out);
		for (size_t i = 0; i < d->n_notes; i++) {
			fputs("<li>", out);
			put_esc(out, d->notes[i]);
			fputs("</li>\n", out);
		}
		fputs("</ul>\n", out);
	}
	fprintf(out, "</footer>\n<script>%s</script>\n</body>\n</html>\n",
		body_script);
	return ferror(out) ? -1 : 0;
}
