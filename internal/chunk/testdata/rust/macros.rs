use crate::runtime::Handle;

macro_rules! cfg_rt {
    ($($item:item)*) => { $( #[cfg(feature = "rt")] $item )* }
}

cfg_rt! {
    /// Spawns a new asynchronous task.
    #[track_caller]
    pub fn spawn<T>(future: T) -> JoinHandle<T::Output>
    where
        T: Future + Send + 'static,
    {
        spawn_inner(future, None)
    }

    cfg_net! {
        pub(crate) fn io_driver() -> Driver {
            Driver::new()
        }
    }
}

pub struct TcpStream {
    io: PollEvented,
}

impl TcpStream {
    cfg_net! {
        /// Opens a TCP connection to a remote host.
        pub async fn connect<A: ToSocketAddrs>(addr: A) -> io::Result<TcpStream> {
            let addrs = to_socket_addrs(addr).await?;
            TcpStream::connect_addr(addrs).await
        }
    }

    fn connect_addr(addr: SocketAddr) -> io::Result<TcpStream> {
        todo!()
    }
}
