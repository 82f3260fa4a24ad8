"""A fixture for tests/lint/function_length_check: Python functions."""


def outer(x):
    def inner(y):
        return y + 1

    return inner(x)


class Thing:
    def method(self):
        return {
            "a": 1,
        }
