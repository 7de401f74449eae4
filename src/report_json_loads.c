/* report_json_loads.c - the load resolution in JSON (report_json.c's document): the
 * libraries indexed, what was assumed from the system, each issue, and each object's
 * answer with the command that fixes the set. */
#include <stdbool.h>

#include "ws_checks.h"
#include "ws_envset.h"
#include "ws_json.h"
#include "ws_report.h"
#include "ws_util.h"

/* "loads": will each library load (src/core/loadres.c), when any shared object was read */
void ws_json_loads(struct ws_buf *b, const struct ws_report *r)
{
	const struct ws_envset *s = &r->env;
	const struct ws_loadres *l = &s->load;
	if (!s->load_judged || !l->nlibs)
		return;
	ws_json_key(b, "loads");
	ws_buf_add(b, "{", 1);
	ws_json_kv_u64(b, "libraries", l->nlibs);
	ws_json_kv_u64(b, "lookups", l->lookups);
	ws_json_key(b, "assumed");
	ws_json_strv(b, (const char *const *)l->assumed, l->nassumed);
	ws_json_key(b, "issues");
	ws_buf_add(b, "[", 1);
	for (size_t i = 0; i < l->nissues; i++) {
		const struct ws_load_issue *e = &l->issues[i];
		ws_buf_add(b, "{", 1);
		ws_json_kv_str(b, "id", ws_check_def(e->check)->id);
		ws_json_kv_str(b, "name", ws_check_def(e->check)->name);
		ws_json_kv_str(b, "package", e->dist < s->n ? s->pkgs[e->dist].name : NULL);   /* null: the set's */
		ws_json_kv_str(b, "object", e->object);
		ws_json_kv_str(b, "what", e->what);
		ws_json_close(b, '}');
	}
	ws_json_close(b, ']');
	ws_json_key(b, "objects");
	ws_buf_add(b, "[", 1);
	for (size_t i = 0; i < l->nobjects; i++) {
		const struct ws_load_object *o = &l->objects[i];
		ws_buf_add(b, "{", 1);
		ws_json_kv_str(b, "package", o->dist < s->n ? s->pkgs[o->dist].name : NULL);
		ws_json_kv_str(b, "object", o->member);
		ws_json_kv_str(b, "loads", o->fails ? "fails" : o->alone ? "alone" : "after-preload");
		ws_json_key(b, "preload");
		ws_json_strv(b, (const char *const *)o->preload, o->npreload);
		ws_json_kv_str(b, "why", o->why);
		ws_json_close(b, '}');
	}
	ws_json_close(b, ']');
	ws_json_kv_str(b, "fix", s->load_fix);
	ws_json_close(b, '}');
}
