/* budget.c - what one artifact may spend over all its members, objects and threads:
 * decoded entry bytes, containers and entries, counted atomically; the first to find the budget
 * spent is told so, to record the one error about it. */
#include "wheelscan.h"

void ws_budget_add_input(struct ws_budget *b, uint64_t n)
{
	if (b)
		__atomic_add_fetch(&b->input, n, __ATOMIC_RELAXED);
}

uint64_t ws_budget_decoded_max(const struct ws_budget *b, const struct ws_limits *lim)
{
	uint64_t in = __atomic_load_n(&b->input, __ATOMIC_RELAXED), r = lim->max_decoded_ratio, m;
	if (r && in > (UINT64_MAX - lim->max_decoded_base) / r)
		return UINT64_MAX;
	m = lim->max_decoded_base + in * r;
	return m;
}

/* Marks the budget spent; SPENT_NOW for the one caller that marked it. */
static enum ws_budget_take spend(bool *spent)
{
	return __atomic_exchange_n(spent, true, __ATOMIC_RELAXED) ? WS_BUDGET_SPENT : WS_BUDGET_SPENT_NOW;
}

enum ws_budget_take ws_budget_decode(struct ws_budget *b, const struct ws_limits *lim, uint64_t n)
{
	if (__atomic_load_n(&b->decoded_spent, __ATOMIC_RELAXED))
		return WS_BUDGET_SPENT;
	uint64_t max = ws_budget_decoded_max(b, lim);
	/* n is at most the entry limit: the sum cannot wrap before it passes max */
	if (n > max || __atomic_add_fetch(&b->decoded, n, __ATOMIC_RELAXED) > max)
		return spend(&b->decoded_spent);
	return WS_BUDGET_OK;
}

/* Takes one of a counted thing (containers, entries) of which max may be taken. */
static enum ws_budget_take take_one(uint64_t *count, bool *spent, uint64_t max)
{
	if (__atomic_load_n(spent, __ATOMIC_RELAXED))
		return WS_BUDGET_SPENT;
	if (__atomic_add_fetch(count, 1, __ATOMIC_RELAXED) > max)
		return spend(spent);
	return WS_BUDGET_OK;
}

enum ws_budget_take ws_budget_container(struct ws_budget *b, const struct ws_limits *lim)
{
	return take_one(&b->containers, &b->containers_spent, lim->max_artifact_containers);
}

enum ws_budget_take ws_budget_entry(struct ws_budget *b, const struct ws_limits *lim)
{
	return take_one(&b->entries, &b->entries_spent, lim->max_artifact_entries);
}
