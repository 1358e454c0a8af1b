/*
 * html_page.c - the HTML report's document: head (charset, a
 * Content-Security-Policy that allows no request at all, inline CSS),
 * the script (hover and click on timeline bars, sorting of tables, copy
 * buttons; nothing of the job is in it), and the entry points that
 * build a page in memory and write it out whole.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "clock.h"
#include "html.h"
#include "summary.h"

static const char *const palette[HTML_PALETTE] = {
	"#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948",
	"#b07aa1", "#ff9da7", "#9c755f", "#bab0ac", "#2f6f9f", "#8cd17d",
};

const char *html_colour(int i)
{
	return palette[(i < 0 ? 0 : i) % HTML_PALETTE];
}

int64_t html_time_ns(const cJSON *o, const char *key)
{
	const char *t = cli_jstr(o, key);
	int64_t ns;

	if (!t || clock_parse_time(t, 0, &ns) != 0)
		return 0;
	return ns;
}

int64_t html_ns_field(const cJSON *o, const char *key)
{
	const cJSON *v = o ? cJSON_GetObjectItemCaseSensitive(o, key) : NULL;

	if (cJSON_IsString(v))
		return strtoll(v->valuestring, NULL, 10);
	if (cJSON_IsNumber(v) && isfinite(v->valuedouble))
		return (int64_t)v->valuedouble;
	return html_time_ns(o, strcmp(key, "start_ns") ? "end" : "start");
}

static const char css[] =
	"body{font:14px/1.4 system-ui,sans-serif;margin:0 auto;max-width:1200px;padding:0 16px 40px;color:#222;background:#fff}\n"
	"h1{font-size:22px;margin:18px 0 4px}h2{font-size:17px;margin:26px 0 8px;border-bottom:1px solid #ddd}\n"
	"table{border-collapse:collapse;font-size:13px}td,th{padding:3px 8px;text-align:left;vertical-align:top}\n"
	"table.data td,table.data th{border-bottom:1px solid #eee}table.data td.n{text-align:right;white-space:nowrap}\n"
	"table.sortable th{cursor:pointer;user-select:none}table.sortable th:after{content:' \\2195';color:#aaa}\n"
	"table.kv th{color:#555;font-weight:600;white-space:nowrap}\n"
	".state{display:inline-block;padding:1px 8px;border-radius:10px;color:#fff;background:#888;font-weight:600}\n"
	".state.COMPLETED{background:#2e7d32}.state.FAILED,.state.OUT_OF_MEMORY,.state.TIMEOUT{background:#c62828}.state.CANCELLED{background:#ef6c00}\n"
	".note{border-left:4px solid #999;background:#f7f7f7;padding:6px 10px;margin:6px 0}\n"
	".note.warning{border-color:#ef6c00}.note.error{border-color:#c62828}.note.info{border-color:#1565c0}\n"
	".note .ev{color:#555;font-size:12px}.note .id{font-family:monospace;color:#555}\n"
	"pre{background:#f4f4f4;padding:8px;overflow:auto;margin:4px 0 10px;white-space:pre-wrap;word-break:break-all}\n"
	".snip{display:inline-block;vertical-align:top;min-width:260px;margin-right:16px}\n"
	"button{font-size:12px;margin-left:8px}\n"
	".bar{display:block;height:5px;background:#4e79a7;margin-top:2px;min-width:1px}\n"
	".meter{display:inline-block;width:160px;height:10px;background:#e8e8e8;vertical-align:middle;margin-left:8px;position:relative}\n"
	".meter span{display:block;height:10px;background:#4e79a7}.meter span.over{background:#c62828}\n"
	"svg{display:block;max-width:100%;height:auto}svg text{font:11px sans-serif;fill:#444}\n"
	"svg .lane{fill:#fafafa}svg .grid{stroke:#e4e4e4}svg .lim{stroke:#c62828;stroke-dasharray:5 3;stroke-width:1.5}\n"
	"svg [data-p]{cursor:pointer}svg [data-p]:hover{stroke:#000;stroke-width:1}\n"
	"svg .agg{opacity:.35}\n"
	"tr.sel{background:#fff3c4}.cmd{font-family:monospace;font-size:12px;word-break:break-all}\n"
	".sw{display:inline-block;width:10px;height:10px;margin-right:5px;vertical-align:middle}\n"
	"#detail{position:sticky;bottom:0;background:#fffbe6;border:1px solid #e0c36a;padding:6px 10px;"
	"white-space:pre-wrap;font-family:monospace;font-size:12px;max-height:30vh;overflow:auto}\n"
	".muted{color:#777}.small{font-size:12px}\n";

/* No job text in here: the page's data is in the markup (escaped). */
static const char script[] =
	"(function(){var d=document,panel=d.getElementById('detail');\n"
	"function tip(el){var t=el.querySelector('title');return t?t.textContent:'';}\n"
	"function show(b){if(!panel)return;panel.textContent=tip(b);panel.hidden=false;}\n"
	"function pick(b){show(b);var r=d.getElementById('p'+b.getAttribute('data-p'));if(!r)return;\n"
	" var dt=r.closest('details');if(dt)dt.open=true;var o=d.querySelectorAll('tr.sel');\n"
	" for(var i=0;i<o.length;i++)o[i].classList.remove('sel');r.classList.add('sel');\n"
	" r.scrollIntoView({block:'nearest'});}\n"
	"function key(c){var v=c.getAttribute('data-v');return v!==null?parseFloat(v):c.textContent.toLowerCase();}\n"
	"function sort(h){var t=h.closest('table'),b=t.tBodies[0],i=h.cellIndex,\n"
	" up=h.getAttribute('data-dir')!=='down',rows=Array.prototype.slice.call(b.rows);\n"
	" rows.sort(function(x,y){var p=key(x.cells[i]),q=key(y.cells[i]);\n"
	"  if(typeof p!==typeof q){p=String(p);q=String(q);}return (p<q?-1:p>q?1:0)*(up?-1:1);});\n"
	" for(var k=0;k<rows.length;k++)b.appendChild(rows[k]);h.setAttribute('data-dir',up?'down':'up');}\n"
	"function copy(btn){var pre=d.getElementById(btn.getAttribute('data-copy'));if(!pre)return;\n"
	" var r=d.createRange();r.selectNodeContents(pre);var s=window.getSelection();s.removeAllRanges();s.addRange(r);\n"
	" var done=function(){btn.textContent='Copied';};\n"
	" if(navigator.clipboard&&navigator.clipboard.writeText)navigator.clipboard.writeText(pre.textContent).then(done,function(){});\n"
	" else{try{d.execCommand('copy');done();}catch(e){}}}\n"
	"d.addEventListener('click',function(e){var t=e.target;if(!t.closest)return;\n"
	" var b=t.closest('[data-p]');if(b){pick(b);return;}\n"
	" var h=t.closest('table.sortable thead th');if(h){sort(h);return;}\n"
	" var c=t.closest('button[data-copy]');if(c)copy(c);});\n"
	"d.addEventListener('mouseover',function(e){var b=e.target.closest&&e.target.closest('[data-p]');if(b)show(b);});\n"
	"})();\n";

void html_begin(FILE *f, const char *title)
{
	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
	      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
	      "style-src 'unsafe-inline'; script-src 'unsafe-inline'\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">\n"
	      "<meta name=\"generator\" content=\"tracer " TRACER_VERSION "\">\n<title>", f);
	h_text(f, title);
	fprintf(f, "</title>\n<style>\n%s</style>\n</head>\n<body>\n", css);
}

void html_end(FILE *f)
{
	fputs("<div id=\"detail\" hidden></div>\n"
	      "<p class=\"muted small\">Made by tracer " TRACER_VERSION
	      " from the job summaries (docs/schema.md); self-contained: this page loads "
	      "nothing.  Hover or click a bar of a timeline for its process; "
	      "click a column title to sort.</p>\n<script>\n", f);
	fputs(script, f);
	fputs("</script>\n</body></html>\n", f);
}

/*
 * The page's file, never through a symbolic link: run as root in a
 * directory others can write (/tmp), a link planted at FILE would have
 * root overwrite its target.  A FIFO or device is refused too (and the
 * open never waits for a FIFO's reader).
 */
static FILE *open_page(const char *path)
{
	struct stat st;
	FILE *f;
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC,
		      0666);

	if (fd < 0) {
		if (errno == ELOOP)
			fprintf(stderr, "tracer: %s is a symbolic link: not followed (name "
					"the file itself)\n", path);
		else
			fprintf(stderr, "tracer: cannot write %s: %s\n", path, strerror(errno));
		return NULL;
	}
	if (fstat(fd, &st) != 0) {
		fprintf(stderr, "tracer: %s: fstat: %s\n", path, strerror(errno));
		close(fd);
		return NULL;
	}
	if (!S_ISREG(st.st_mode)) {
		fprintf(stderr, "tracer: cannot write %s: not a regular file\n", path);
		close(fd);
		return NULL;
	}
	if (fcntl(fd, F_SETFL, 0) != 0) {
		fprintf(stderr, "tracer: %s: fcntl: %s\n", path, strerror(errno));
		close(fd);
		return NULL;
	}
	f = fdopen(fd, "w");
	if (!f) {
		fprintf(stderr, "tracer: cannot write %s: %s\n", path, strerror(errno));
		close(fd);
	}
	return f;
}

/* Write the page in buf out to path ("-": stdout). */
static int write_out(const char *buf, size_t len, const char *path)
{
	FILE *out = strcmp(path, "-") ? open_page(path) : stdout;

	if (!out)
		return 1;
	if (fwrite(buf, 1, len, out) != len || fflush(out) != 0) {
		fprintf(stderr, "tracer: writing %s: %s\n", path, strerror(errno));
		if (out != stdout)
			fclose(out);
		return 1;
	}
	if (out != stdout && fclose(out) != 0) {
		fprintf(stderr, "tracer: writing %s: %s\n", path, strerror(errno));
		return 1;
	}
	return 0;
}

/* Build with fill into memory, then write: no half page on an error. */
int html_write_page(const char *path, void (*fill)(FILE *, const void *, const char *),
		    const void *data, const char *run)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int rc;

	if (!f) {
		fprintf(stderr, "tracer: out of memory\n");
		return 1;
	}
	fill(f, data, run);
	if (ferror(f) || fclose(f) != 0) {
		fprintf(stderr, "tracer: out of memory building the page\n");
		free(buf);
		return 1;
	}
	rc = write_out(buf, len, path);
	free(buf);
	return rc;
}

static void fill_job(FILE *f, const void *data, const char *unused)
{
	const cJSON *s = data, *id = cJSON_GetObjectItem(s, "identity");
	char title[512];

	snprintf(title, sizeof(title), "tracer: %s (%s)", fmt_or_dash(cli_jstr(id, "task_name")),
		 fmt_or_dash(cli_jstr(s, "job")));
	html_begin(f, title);
	html_job_body(f, s);
	html_end(f);
}

static void fill_run(FILE *f, const void *data, const char *run)
{
	char title[512];

	snprintf(title, sizeof(title), "tracer: run %s", run);
	html_begin(f, title);
	html_run_body(f, data, run);
	html_end(f);
}

int html_write_job(const cJSON *summary, const char *path)
{
	return html_write_page(path, fill_job, summary, NULL);
}

int html_write_run(cJSON *summaries, const char *run, const char *path)
{
	return html_write_page(path, fill_run, summaries, run);
}
