require 'json'
require 'bcrypt'
require_relative 'models/base'

# A user account.
class Account < ActiveRecord::Base
  include Comparable

  has_many :orders

  def self.authenticate(email, password)
    user = find_by(email: email)
    user if user && BCrypt::Password.new(user.digest) == password
  end

  def to_json(*args)
    JSON.generate(name: name, email: email)
  end

  module Helpers
    def display_name
      "#{first} #{last}".strip
    end
  end
end

def helper(x)
  x.to_s
end
