/* SPDX-License-Identifier: MIT */
// A tinyxml2 workload for bench/truth_table.py: generates an XML document
// in memory (nested elements, attributes, text with entities, comments,
// CDATA), then parses it again and again with XMLDocument::Parse and walks
// each tree, querying attributes and reading text. Prints a checksum, the
// same on every run.
//
// usage: xmlparse [ROUNDS [BOOKS]]
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "tinyxml2.h"

using namespace tinyxml2;

static const char *const WORDS[] = {"alpha", "beta", "gamma", "delta", "epsilon", "zeta",
				    "eta", "theta"};

static std::string make_document(int books)
{
	std::string s = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<catalog version=\"3\">\n";
	char buf[256];
	for (int i = 0; i < books; i++) {
		snprintf(buf, sizeof buf,
			 "  <book id=\"%d\" lang=\"%s\" price=\"%d.%02d\" available=\"%s\">\n", i,
			 i % 3 ? "en" : "fr", 5 + i % 40, i % 100, i % 2 ? "true" : "false");
		s += buf;
		snprintf(buf, sizeof buf, "    <title>%s &amp; %s, part %d</title>\n", WORDS[i % 8],
			 WORDS[(i / 8) % 8], i % 11);
		s += buf;
		snprintf(buf, sizeof buf, "    <author first=\"%s\" last=\"%s&apos;s\" born=\"%d\"/>\n",
			 WORDS[(i + 3) % 8], WORDS[(i + 5) % 8], 1900 + i % 120);
		s += buf;
		s += "    <!-- chapters follow -->\n    <chapters>\n";
		for (int j = 0; j < 1 + i % 6; j++) {
			snprintf(buf, sizeof buf,
				 "      <chapter n=\"%d\" pages=\"%d\">%s &lt;%d&gt; %s &quot;%s&quot;"
				 "</chapter>\n", j, 3 + (i * j) % 29, WORDS[j % 8], j, WORDS[(i + j) % 8],
				 WORDS[(i * 7 + j) % 8]);
			s += buf;
		}
		s += "    </chapters>\n";
		if (i % 4 == 0)
			s += "    <note><![CDATA[raw <text> & more]]></note>\n";
		s += "  </book>\n";
	}
	s += "</catalog>\n";
	return s;
}

struct Totals {
	long elements, attributes, text_bytes, ints;
};

// Recursive, as a reader of a tree would write it.
static void walk(const XMLElement *e, Totals *t)
{
	t->elements++;
	for (const XMLAttribute *a = e->FirstAttribute(); a; a = a->Next()) {
		t->attributes++;
		t->text_bytes += (long)strlen(a->Name()) + (long)strlen(a->Value());
	}
	int v = 0;
	if (e->QueryIntAttribute("id", &v) == XML_SUCCESS || e->QueryIntAttribute("n", &v) ==
	    XML_SUCCESS)
		t->ints += v;
	t->ints += e->IntAttribute("pages", 0) + e->IntAttribute("born", 0);
	double price = 0;
	if (e->QueryDoubleAttribute("price", &price) == XML_SUCCESS)
		t->ints += (long)(price * 100);
	if (e->BoolAttribute("available", false))
		t->ints++;
	if (const char *text = e->GetText())
		t->text_bytes += (long)strlen(text);
	for (const XMLElement *c = e->FirstChildElement(); c; c = c->NextSiblingElement())
		walk(c, t);
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 6;
	int books = argc > 2 ? atoi(argv[2]) : 4000;
	std::string doc = make_document(books);
	Totals t = {0, 0, 0, 0};
	for (int r = 0; r < rounds; r++) {
		XMLDocument d;
		if (d.Parse(doc.data(), doc.size()) != XML_SUCCESS) {
			fprintf(stderr, "xmlparse: %s\n", d.ErrorStr());
			return 1;
		}
		walk(d.RootElement(), &t);
	}
	printf("%zu bytes, %d rounds: %ld elements, %ld attributes, %ld text bytes, %ld\n",
	       doc.size(), rounds, t.elements, t.attributes, t.text_bytes, t.ints);
	return 0;
}
