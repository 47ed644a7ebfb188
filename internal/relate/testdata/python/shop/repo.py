import json

from .models import User


class Repo:
    def __init__(self):
        self.items = {}

    def add(self, name):
        u = User(name)
        u.save()
        self.items[name] = u
        return u

    def find_by_name(self, name):
        return self.items.get(name)

    class Index:
        def rebuild(self):
            self.clear()

        def clear(self):
            pass

    def dump(self):
        return json.dumps(list(self.items))
