-- SPDX-License-Identifier: MIT
-- A CPU-bound mix for the lua interpreter, for bench/truth_table.py: each
-- part exercises another path through the C core (calls and returns, table
-- get/set and resizing, string interning and concatenation, closures and
-- upvalues, the collector). Prints one checksum per part, the same on every
-- run, so that a run under the preload can be checked against one without.

local N = tonumber(arg and arg[1]) or 1

-- Calls and returns.
local function fib(n)
	if n < 2 then return n end
	return fib(n - 1) + fib(n - 2)
end

-- Tables: array inserts, hash inserts keyed by strings, lookups, removals.
local function tables(n)
	local arr, map = {}, {}
	for i = 1, n do
		arr[#arr + 1] = i * 3 % 17
		map["k" .. (i % 5003)] = i
	end
	local sum = 0
	for i = 1, n, 3 do
		sum = sum + arr[i] + (map["k" .. (i % 5003)] or 0)
	end
	while #arr > n // 2 do
		sum = sum + table.remove(arr)
	end
	table.sort(arr)
	return sum + arr[1] + arr[#arr]
end

-- Strings: building with .. and table.concat, format, find and gsub.
local function strings(n)
	local parts = {}
	for i = 1, n do
		parts[#parts + 1] = string.format("%d:%s", i, string.rep("ab", i % 7))
	end
	local s = table.concat(parts, ",")
	local count = 0
	for w in s:gmatch("%d+:") do
		count = count + #w
	end
	local t = s:sub(1, 20000):gsub("ab", "x")
	return count + #t + #s
end

-- Closures: counters made and called, upvalues shared between them.
local function closures(n)
	local function counter(step)
		local c = 0
		return function() c = c + step; return c end, function() return c end
	end
	local total = 0
	for i = 1, n do
		local inc, get = counter(i % 9 + 1)
		inc(); inc()
		total = total + get()
	end
	return total
end

-- Objects: metatables, method calls through __index.
local Point = {}
Point.__index = Point
function Point.new(x, y) return setmetatable({x = x, y = y}, Point) end
function Point:add(o) return Point.new(self.x + o.x, self.y + o.y) end
function Point:norm1() return math.abs(self.x) + math.abs(self.y) end

local function objects(n)
	local p = Point.new(0, 0)
	for i = 1, n do
		p = p:add(Point.new(i % 13 - 6, i % 7 - 3))
	end
	return p:norm1()
end

for _ = 1, N do
	print("fib", fib(24))
	print("tables", tables(150000))
	print("strings", strings(60000))
	print("closures", closures(150000))
	print("objects", objects(150000))
end
