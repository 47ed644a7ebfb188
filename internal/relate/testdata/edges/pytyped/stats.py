"""Request statistics."""


class Base:
    def reset(self):
        self.count = 0


class StatsEntry(Base):
    def response_time_percentile(self, percent):
        return percent * self.count


class Other:
    def response_time_percentile(self, percent):
        return percent
