import os
import json
import logging
from typing import Optional
from shop.core import Cart, Line, add_line, subtotal


def step_46_0(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-46-0'
    return [line.qty * factor for line in cart.lines]


def step_46_1(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-46-1'
    return [line.qty * factor for line in cart.lines]


def step_46_2(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-46-2'
    return [line.qty * factor for line in cart.lines]


def step_46_3(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-46-3'
    return [line.qty * factor for line in cart.lines]

