"""Example web application."""
import os
import requests
from flask import Flask, jsonify
from .models import User
from . import views

app = Flask(__name__)
DEBUG = os.environ.get("DEBUG") == "1"


@app.route("/users/<int:user_id>")
@login_required
def get_user(user_id):
    """Return one user as JSON."""
    user = User.query.get(user_id)
    return jsonify(user.to_dict())


class UserService(BaseService, metaclass=ABCMeta):
    """Business logic for users."""

    def __init__(self, repo):
        self.repo = repo

    @property
    def count(self):
        return self.repo.count()

    def find(self, name: str, *, limit: int = 10) -> list:
        def matches(u):
            return name in u.name
        return [u for u in self.repo.all() if matches(u)][:limit]

    class Meta:
        def describe(self):
            return requests.get("http://example.com").text


def café_handler(request):
    return get_user(request.id)


if __name__ == "__main__":
    port = int(os.environ.get("PORT", "5000"))
    app.run(host="0.0.0.0", port=port,
            debug=DEBUG)
