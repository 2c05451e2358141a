"""A run's units by index, found by bisection over the documents' running totals."""

from karaka.kg.units import plan_units, units_between


def test_units_between_is_the_slice_of_all_units_in_order():
    docs, lines, window = ["a", "b", "c", "d"], [3, 0, 5, 2], 2
    counts = [(n + window - 1) // window for n in lines]
    every = [u for d, n in zip(docs, lines, strict=True) for u in plan_units(d, n, window)]
    for start in range(len(every) + 1):
        for end in range(start, len(every) + 2):
            assert units_between(docs, counts, lines, window, start, end) == every[start:end]

