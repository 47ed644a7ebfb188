import requests

from shop.repo import Repo
from . import models


class Service:
    def __init__(self):
        self.repo = Repo()

    def register(self, name):
        user = self.repo.add(name)
        notify(user)
        return user.display()


def notify(user):
    requests.post("http://example.invalid", json={"u": models.format_name(user.name)})


def main():
    s = Service()
    s.register("ann")
