import engine


def test_public_names_are_exactly_the_front_door() -> None:
    assert engine.__all__ == sorted(engine.__all__)
    assert set(engine.__all__) == {
        "Engine",
        "Kind",
        "KindError",
        "Options",
        "RenderError",
        "StencilError",
        "load_kind",
        "load_kinds",
        "render",
    }
    for name in engine.__all__:
        assert getattr(engine, name).__module__.startswith("engine.")
