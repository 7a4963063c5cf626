/* SPDX-License-Identifier: MIT */
// C++ names: namespaces, templates, operators, and one very long name.
#include <cstdio>
#include <string>
#include <vector>

namespace geo {
template <typename T> struct Box {
	T v;
	explicit Box(T x) : v(x) {}
	bool operator<(const Box &o) const { return v < o.v; }
	Box<T> grow(int by) const { return Box<T>(v + by); }
};
} // namespace geo

template <int N> struct Deep {
	typedef typename Deep<N - 1>::type type;
};
template <> struct Deep<0> {
	typedef geo::Box<std::vector<std::pair<std::string, std::vector<int>>>> type;
};

template <typename A, typename B, typename C, typename D> struct Quad {
	static int touch(int x) { return x + 1; }
};
typedef Quad<Deep<3>::type, std::vector<Deep<3>::type>,
	     std::vector<std::vector<Deep<3>::type>>,
	     std::vector<std::vector<std::vector<Deep<3>::type>>>> LongName;

template <typename A> struct Nest {
	template <typename B> static int call(int x)
	{
		return LongName::touch(x);
	}
};

int main()
{
	geo::Box<int> a(1), b(2);
	int less = 0;
	for (int i = 0; i < 4; i++) {
		less += a < b;
		a = a.grow(1);
	}
	int n = Nest<LongName>::call<std::vector<LongName>>(less);
	std::printf("%d %d\n", less, n);
	return 0;
}
