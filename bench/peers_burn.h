/*
 * peers_burn - CPU burnt on purpose by the peers benchmark's workload
 * programs (bench/peers_spike.c, bench/peers_orphan.c): one loop, so the
 * collectors compare like with like.
 */
#ifndef PEERS_BURN_H
#define PEERS_BURN_H

/* burn MS milliseconds of this process's own CPU time (not wall time:
 * a loaded machine stretches the wall clock, not the work) */
void peers_burn_ms(long ms);

#endif
