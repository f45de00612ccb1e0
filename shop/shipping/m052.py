import os
import json
import logging
from typing import Optional
from shop.core import Cart, Line, add_line, subtotal


def step_52_0(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-52-0'
    return [line.qty * factor for line in cart.lines]


def step_52_1(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-52-1'
    return [line.qty * factor for line in cart.lines]


def step_52_2(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-52-2'
    return [line.qty * factor for line in cart.lines]


def step_52_3(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-52-3'
    return [line.qty * factor for line in cart.lines]

