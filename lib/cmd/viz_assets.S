/* SPDX-License-Identifier: MIT */
/*
 * viz_assets.S — the page `profviz html` writes (html.c) is made of the
 * plain files in viz/, built into the command here so that it needs no
 * install path: each file's bytes under a symbol, then a NUL.
 */
#define ASSET(symbol, file)		\
	.globl symbol;			\
	.type symbol, @object;		\
symbol:					\
	.incbin file;			\
	.byte 0;			\
	.size symbol, . - symbol

	.section .rodata
ASSET(pv_viz_page_html, "viz/page.html")
ASSET(pv_viz_style_css, "viz/style.css")
ASSET(pv_viz_format_js, "viz/format.js")
ASSET(pv_viz_model_js, "viz/model.js")
ASSET(pv_viz_graph_js, "viz/graph.js")
ASSET(pv_viz_search_js, "viz/search.js")
ASSET(pv_viz_table_js, "viz/table.js")
ASSET(pv_viz_icicle_js, "viz/icicle.js")
ASSET(pv_viz_panel_js, "viz/panel.js")
ASSET(pv_viz_main_js, "viz/main.js")

	.section .note.GNU-stack, "", @progbits
