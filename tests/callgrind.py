"""Call counts from a callgrind output file: the ground truth for counts."""
import collections
import re


def call_counts(path):
    """{function name: times called}, summed over callers and files."""
    names = {}
    counts = collections.Counter()
    callee = None

    def name_of(text):
        m = re.match(r"\((\d+)\)(?: (.*))?$", text)
        if not m:
            return text
        if m.group(2) is not None:
            names[m.group(1)] = m.group(2)
        return names.get(m.group(1), text)

    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("fn="):
                name_of(line[3:])
            elif line.startswith("cfn="):
                callee = name_of(line[4:])
            elif line.startswith("calls=") and callee is not None:
                counts[callee] += int(line[6:].split()[0])
                callee = None
    return counts
