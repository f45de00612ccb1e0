import os
import json
import logging
from typing import Optional
from shop.core import Cart, Line, add_line, subtotal


def step_75_0(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-75-0'
    return [line.qty * factor for line in cart.lines]


def step_75_1(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-75-1'
    return [line.qty * factor for line in cart.lines]


def step_75_2(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-75-2'
    return [line.qty * factor for line in cart.lines]


def step_75_3(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-75-3'
    return [line.qty * factor for line in cart.lines]

