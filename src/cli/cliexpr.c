/* cliexpr: the options of the expression language (fwin(1),
 * EXPRESSIONS): each parsed here, once, into its program; usage errors
 * name the option and the place in its text. */
#include <stdlib.h>
#include <string.h>

#include "window/agg.h"
#include "pipeline/config.h"
#include "pipeline/expr.h"
#include "cli/usage.h"
#include "base/util.h"

static struct expr *
parse(const char *opt, const char *text)
{
	char err[256];
	struct expr *e = expr_parse(text, err, sizeof(err));

	if (e == NULL)
		usage_error("%s: %s", opt, err);
	return e;
}

/* The aggregate an --if or --as is about: the last one before it. */
static struct aggspec *
last_agg(struct config *c, const char *opt)
{
	if (c->naggs == 0)
		usage_error("%s needs an aggregate option before it "
		    "(--count %s ...)", opt, opt);
	return &c->aggs[c->naggs - 1];
}

/* A column name of --as or --eval: something a header row, a JSON key
 * and an expression (as ${NAME}) can all hold. */
static void
check_name(const char *opt, const char *name)
{
	if (*name == '\0')
		usage_error("%s: an empty name", opt);
	if (strpbrk(name, "}\n\t\r") != NULL)
		usage_error("%s: '%s': a name cannot hold '}', a tab or a "
		    "newline", opt, name);
}

static void
add_eval(struct config *c, const char *arg)
{
	const char *eq = strchr(arg, '=');
	struct evalcol *ev;

	if (eq == NULL || eq == arg)
		usage_error("--eval: '%s' is not NAME=EXPR", arg);
	c->evals = xrealloc(c->evals, (c->nevals + 1) * sizeof(*c->evals));
	ev = &c->evals[c->nevals];
	ev->name = xstrndup(arg, (size_t)(eq - arg));
	check_name("--eval", ev->name);
	ev->e = parse("--eval", eq + 1);
	c->nevals++;
}

int
cli_expr_option(struct config *c, int ch, const char *arg)
{
	struct aggspec *a;

	switch (ch) {
	case O_WHERE:
		if (c->where != NULL)
			usage_error("--where may be given only once (join "
			    "conditions with &&)");
		c->where = parse("--where", arg);
		config_bind_fields(c, c->where, "--where");
		return 1;
	case O_IF:
		a = last_agg(c, "--if");
		if (a->cond != NULL)
			usage_error("--if: --%s has one already (join "
			    "conditions with &&)", a->op->option);
		a->cond = parse("--if", arg);
		config_bind_fields(c, a->cond, "--if");
		return 1;
	case O_AS:
		a = last_agg(c, "--as");
		if (a->as != NULL)
			usage_error("--as: --%s is named '%s' already",
			    a->op->option, a->as);
		if (a->op->flags & AGF_PCT && (a->op->flags & AGF_PLIST) &&
		    a->npct > 1)
			usage_error("--as: --%s has a column per percentile; "
			    "name one percentile per option", a->op->option);
		check_name("--as", arg);
		a->as = xstrdup(arg);
		return 1;
	case O_HAVING:
		if (c->having != NULL)
			usage_error("--having may be given only once (join "
			    "conditions with &&)");
		c->having = parse("--having", arg);
		return 1;
	case O_EVAL:
		add_eval(c, arg);
		return 1;
	default:
		return 0;
	}
}
