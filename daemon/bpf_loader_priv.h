/*
 * bpf_loader_priv.h - the BPF loader's state, shared by its three files
 * only: bpf_loader.c (load, attach, map operations), bpf_pins.c (what is
 * pinned in bpffs and kept across a restart) and bpf_setup.c (what is
 * readied before loading).
 */
#ifndef TRACER_BPF_LOADER_PRIV_H
#define TRACER_BPF_LOADER_PRIV_H

#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

#include <bpf/libbpf.h>

#include "tracer.skel.h"

struct bpf_loader {
	struct tracer_bpf *skel;
	struct ring_buffer *rb;
	int ncpus;
	char pin_dir[PATH_MAX];
	int npinned; /* maps pinned so far, in bpf_pins_maps() order */
	bool resume, resumed, keep_pins;
	bpf_event_fn fn;     /* the consumer's callback and its context */
	void *fn_ctx;
	int batch_left;      /* records left in this batch; 0: no bound */
};

/* bpf_pins.c */
struct bpf_link **bpf_pins_link(struct tracer_bpf *skel, int i, const char **name);
struct bpf_map *bpf_pins_map(struct tracer_bpf *skel, int i);
int bpf_pins_make_dirs(const char *path, char *err, size_t errlen);
int bpf_pins_set_paths(struct bpf_loader *l, char *err, size_t errlen);
int bpf_pins_maps(struct bpf_loader *l, char *err, size_t errlen);
void bpf_pins_remove(struct bpf_loader *l);
void bpf_pins_unpin_links(struct bpf_loader *l);
void bpf_pins_unpin_link_of(struct bpf_loader *l, struct bpf_link **slot);
void bpf_pins_links(struct bpf_loader *l);
void bpf_pins_unpin_maps(struct bpf_loader *l);
void bpf_pins_count_tagged_cgroups(struct bpf_loader *l);

/* bpf_setup.c */
int bpf_setup_log(enum libbpf_print_level level, const char *fmt, va_list ap);
void bpf_setup_memlock(void);
/* dir mounted as type (magic: its statfs f_type), mounted now if not */
int bpf_setup_mount(const char *dir, long magic, const char *type,
		    const char *opts, char *err, size_t errlen);
/* the skeleton's read-only constants and map sizes, before loading */
int bpf_setup_configure(struct tracer_bpf *skel, const struct bpf_loader_opts *o,
			char *err, size_t errlen);

#endif
