/*
 * slurmmail.c - the job and event of a Slurm mail (slurmmail.h).  The
 * subject holds the user's job name, so nothing is read from it but
 * digits after a fixed marker and the last event word.
 */
#include <stdio.h>
#include <string.h>

#include "slurmmail.h"

/* Copy the digits at p (at most len - 1) into out; returns how many. */
static size_t digits(const char *p, char *out, size_t len)
{
	size_t n = 0;

	while (p[n] >= '0' && p[n] <= '9' && n + 1 < len) {
		out[n] = p[n];
		n++;
	}
	out[n] = '\0';
	return p[n] >= '0' && p[n] <= '9' ? 0 : n; /* too long: none */
}

/* The last place in s where word stands alone: " WORD," or " WORD" at the end. */
static const char *last_word(const char *s, const char *word)
{
	const char *best = NULL, *p = s;
	size_t n = strlen(word);

	while ((p = strstr(p, word)) != NULL) {
		if (p > s && p[-1] == ' ' && (p[n] == ',' || p[n] == '\0'))
			best = p;
		p += n;
	}
	return best;
}

static enum slurmmail_event last_event(const char *s)
{
	static const struct {
		const char *word;
		enum slurmmail_event ev;
	} words[] = {
		{"Ended", SLURMMAIL_ENDED},
		{"Failed", SLURMMAIL_FAILED},
		{"Requeued", SLURMMAIL_REQUEUED},
		{"Began", SLURMMAIL_OTHER},
	};
	const char *best = NULL;
	enum slurmmail_event ev = SLURMMAIL_OTHER;

	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
		const char *p = last_word(s, words[i].word);

		if (p && (!best || p > best)) {
			best = p;
			ev = words[i].ev;
		}
	}
	return ev;
}

int slurmmail_parse(const char *subject, struct slurmmail *m)
{
	const char *p, *name;
	char task[24];
	size_t n;

	memset(m, 0, sizeof(*m));
	if (!subject)
		return -1;
	p = strstr(subject, "Job_id=");
	if (!p) {
		p = strstr(subject, "JobId=");
		if (!p)
			return -1;
		p += 6;
	} else {
		p += 7;
	}
	n = digits(p, m->job_id, sizeof(m->job_id));
	if (!n)
		return -1;
	p += n;
	if (p[0] == '_' && p[1] == '*') {
		m->array_summary = true;
	} else if (p[0] == '_' && (n = digits(p + 1, task, sizeof(task))) > 0) {
		/* an array task: its own job id follows in parentheses */
		p += 1 + n;
		if (p[0] == ' ' && p[1] == '(' && (n = digits(p + 2, task, sizeof(task))) > 0 &&
		    p[2 + n] == ')')
			snprintf(m->job_id, sizeof(m->job_id), "%s", task);
	}
	name = strstr(p, " Name=");
	m->event = last_event(name ? name : p);
	return 0;
}

int slurmmail_type(const char *mail_type, enum slurmmail_event *ev)
{
	if (!mail_type || !mail_type[0])
		return -1;
	if (!strcmp(mail_type, "Ended"))
		*ev = SLURMMAIL_ENDED;
	else if (!strcmp(mail_type, "Failed"))
		*ev = SLURMMAIL_FAILED;
	else if (!strcmp(mail_type, "Requeued"))
		*ev = SLURMMAIL_REQUEUED;
	else
		*ev = SLURMMAIL_OTHER;
	return 0;
}

int slurmmail_from_env(const char *job_id, const char *mail_type, struct slurmmail *m)
{
	memset(m, 0, sizeof(*m));
	if (!job_id || !digits(job_id, m->job_id, sizeof(m->job_id)) ||
	    job_id[strlen(m->job_id)] != '\0') {
		m->job_id[0] = '\0';
		return -1;
	}
	slurmmail_type(mail_type, &m->event);
	return 0;
}

bool slurmmail_wants_verdict(const struct slurmmail *m)
{
	return m->job_id[0] && !m->array_summary && m->event != SLURMMAIL_OTHER;
}
