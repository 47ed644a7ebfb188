describe App::Router do
  it 'mounts' do
    expect(App::Router.new.mount('/a')).to eq(false)
  end
end
