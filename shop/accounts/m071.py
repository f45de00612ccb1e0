import os
import json
import logging
from typing import Optional
from shop.core import Cart, Line, add_line, subtotal


def step_71_0(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-71-0'
    return [line.qty * factor for line in cart.lines]


def step_71_1(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-71-1'
    return [line.qty * factor for line in cart.lines]


def step_71_2(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-71-2'
    return [line.qty * factor for line in cart.lines]


def step_71_3(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-71-3'
    return [line.qty * factor for line in cart.lines]

