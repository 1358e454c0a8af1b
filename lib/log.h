/*
 * log.h - one-line messages to stderr (journald adds time and unit), with
 * a level filter.  Libraries used inside the SPANK plugin never call it:
 * they return errors and the plugin logs through slurm_error.
 */
#ifndef TRACER_LOG_H
#define TRACER_LOG_H

enum log_level { LOG_DEBUG = 0, LOG_INFO, LOG_WARN, LOG_ERROR };

void log_set_level(enum log_level lvl);
int log_parse_level(const char *s); /* -1 when unknown */
int log_enabled(enum log_level lvl); /* would a message at lvl be written? */
void log_set_prefix(const char *prefix);
void log_msg(enum log_level lvl, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#define log_debug(...) log_msg(LOG_DEBUG, __VA_ARGS__)
#define log_info(...) log_msg(LOG_INFO, __VA_ARGS__)
#define log_warn(...) log_msg(LOG_WARN, __VA_ARGS__)
#define log_error(...) log_msg(LOG_ERROR, __VA_ARGS__)

#endif
