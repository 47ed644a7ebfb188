using System;
using System.Collections.Generic;
using Acme.Data;
using Json = Newtonsoft.Json;

namespace Acme.Orders
{
    /// <summary>Places and tracks orders.</summary>
    [Service]
    public class OrderService : ServiceBase, IOrderService, IDisposable
    {
        private readonly IRepository<Order> _repo;

        public OrderService(IRepository<Order> repo)
        {
            _repo = repo;
        }

        public async Task<Order> PlaceAsync(Customer customer, IEnumerable<Item> items)
        {
            var order = Order.Create(customer, items);
            await _repo.AddAsync(order);
            Notify(order);
            return order;
        }

        public void Dispose() => _repo.Dispose();
    }

    public interface IOrderService : IService
    {
        Task<Order> PlaceAsync(Customer customer, IEnumerable<Item> items);
    }

    public record OrderPlaced(Guid Id, DateTime At);

    public struct Money { public decimal Amount; }

    public enum Status { New, Shipped }
}
