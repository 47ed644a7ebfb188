// Two types with a method of the same name, called as Type::m and Self::m.

#[derive(Clone, Copy)]
pub enum Level {
    Error = 1,
    Warn,
    Info,
}

impl Level {
    fn from_usize(u: usize) -> Option<Level> {
        match u {
            1 => Some(Level::Error),
            2 => Some(Level::Warn),
            3 => Some(Level::Info),
            _ => None,
        }
    }

    pub fn parse(s: &str) -> Option<Level> {
        Level::from_usize(s.len())
    }

    pub fn up(&self) -> Level {
        Self::from_usize(*self as usize + 1).unwrap_or(*self)
    }
}

pub enum Filter {
    Off,
    On,
}

impl Filter {
    fn from_usize(u: usize) -> Option<Filter> {
        if u == 0 {
            Some(Filter::Off)
        } else {
            Some(Filter::On)
        }
    }

    pub fn up(&self) -> Filter {
        Self::from_usize(1).unwrap_or(Filter::Off)
    }
}
