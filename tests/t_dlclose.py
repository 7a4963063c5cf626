#!/usr/bin/env python3
"""dlopen/dlclose: functions of an object unloaded before exit keep their
names (and module) in the profile."""
import os
import harness as h

t = h.Tap()
plugin = h.build("plugin", flags=["-fPIC", "-shared"], out=os.path.join(h.BUILD, "plugin.so"))
host = h.build("plugin_host", libs=["-ldl"])
r = h.run([host, plugin])
t.eq(r.stdout, b"unloaded\n", "plugin loaded, called and unloaded")
p = r.json()
t.eq(p.calls("plugin_entry"), 1, "exported function named after dlclose")
t.eq(p.calls("plugin_helper"), 6, "static function named after dlclose")
t.eq(p.func("plugin_helper")["module"], os.path.realpath(plugin), "module kept")
t.eq(p.arc_calls("main", "plugin_entry"), 1, "arc into the plugin")
t.ok(not any(f["name"].startswith("0x") for f in p.funcs), "no raw addresses")
t.done()
