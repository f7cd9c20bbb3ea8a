import sys, importlib.util
sys.path.insert(0, "/work/main")
import h2d_impl
from h2d_impl import h2d as new
spec = importlib.util.spec_from_file_location("h2d_impl.h2d_old", "/tmp/review_serial/h2d_old.py")
old = importlib.util.module_from_spec(spec); sys.modules["h2d_impl.h2d_old"] = old; spec.loader.exec_module(old)
