from dataclasses import dataclass


class Base:
    def save(self):
        self.validate()

    def validate(self):
        pass


class User(Base):
    def __init__(self, name):
        self.name = name

    def display(self):
        return format_name(self.name)


def format_name(n):
    return n.title()
