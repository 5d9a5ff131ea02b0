/* SPDX-License-Identifier: MIT */
/*
 * Call tracing: what the process asked of the driver, as a Perfetto trace.
 *
 * Asked for at load, through the environment (read once, with secure_getenv):
 *   GPUSHIM_TRACE=/path/trace.json   every driver call through gpushim as a
 *                                    Chrome/Perfetto trace-event JSON file
 *                                    (complete "X" events), plus the load stages:
 *                                    made at the load (0600, a new file of a random
 *                                    name, renamed over a regular file only), each
 *                                    call's event put in it as the call returns, the
 *                                    closing record at exit; %p in the path: the pid
 *   GPUSHIM_TRACE_GPU=1              with GPUSHIM_TRACE: the GPU time of each
 *                                    launch and copy, from timing events, on
 *                                    one track per stream
 *   GPUSHIM_TRACE_SUMMARY=1          per entry point: calls, failures and host
 *                                    time, printed to stderr at exit
 *   GPUSHIM_TRACE_MAX_EVENTS=N       the most calls (and GPU spans) kept; later
 *                                    ones are counted as dropped (default 262144)
 * With none of them set nothing changes: the table keeps the driver's own
 * pointers, so tracing costs nothing when it is off.
 */
#ifndef GPUSHIM_SYS_TRACE_H
#define GPUSHIM_SYS_TRACE_H

#include "gpushim/driver.h"

#include "sys/driver/driver.h"

/*
 * Called by the loader once, with the table just filled with the driver's
 * pointers, before any other thread can see it, and its load report (the
 * stages' times filled; read again at exit for the trace's load track). When
 * tracing was asked for, keeps those pointers and puts a traced wrapper of
 * each in their place, and returns true; otherwise does nothing to the table.
 */
bool gpu__trace_install(struct gpu__driver *table, const gpu_load_report *report);

/* Whether tracing was installed at the load: then libgpushim-cuda's calls are traced too. */
bool gpu__trace_forwarding(void);

/*
 * One call through libgpushim-cuda, timed from t0 to t1 by its thunk:
 * `symbol` indexes cuda_symbols.h, `args` holds the first `argc` arguments
 * as their registers or stack words had them, `kinds` says how each is
 * written (cuda_symbols.h's letters).
 */
void gpu__trace_forwarded(unsigned symbol, const char *kinds, const uint64_t *args, unsigned argc, cuabi_result rc,
                          uint64_t t0, uint64_t t1);

#endif
